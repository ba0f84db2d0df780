/* bench/cholesky_starpu.c: the same tile Cholesky with StarPU 1.3 in double
   precision: each tile a matrix handle, starpu_task_insert with the same
   priorities, CPU codelets on the same OpenBLAS kernels, history-based
   performance models (dmda/dmdas need them; a warm-up factorisation in the
   same process calibrates them before the timed one).
     STARPU_NCPU=2 STARPU_SCHED=dmdas cholesky_starpu N NB */
#define _POSIX_C_SOURCE 200809L
#include <starpu.h>
#include "cholesky_common.h"

static int nb_global;
static void potrf_cpu(void *b[], void *arg) {
    int last;
    starpu_codelet_unpack_args(arg, &last);
    if (chol_potrf((double *)STARPU_MATRIX_GET_PTR(b[0]), nb_global, last ? NULL : (double *)STARPU_MATRIX_GET_PTR(b[1]), nb_global))
        fprintf(stderr, "not positive definite\n");
}
static void trsm_cpu(void *b[], void *arg) {
    (void)arg;
    chol_trsm((const double *)STARPU_MATRIX_GET_PTR(b[0]), (double *)STARPU_MATRIX_GET_PTR(b[1]), nb_global, nb_global, nb_global);
}
static void syrk_cpu(void *b[], void *arg) {
    (void)arg;
    chol_syrk((const double *)STARPU_MATRIX_GET_PTR(b[0]), nb_global, (double *)STARPU_MATRIX_GET_PTR(b[1]), nb_global, nb_global, nb_global);
}
static void gemm_cpu(void *b[], void *arg) {
    (void)arg;
    chol_gemm((const double *)STARPU_MATRIX_GET_PTR(b[0]), nb_global, (const double *)STARPU_MATRIX_GET_PTR(b[1]),
              nb_global, (double *)STARPU_MATRIX_GET_PTR(b[2]), nb_global, nb_global, nb_global, nb_global);
}
static struct starpu_perfmodel m_potrf = { .type = STARPU_HISTORY_BASED, .symbol = "dag_bench_dpotrf" };
static struct starpu_perfmodel m_trsm = { .type = STARPU_HISTORY_BASED, .symbol = "dag_bench_dtrsm" };
static struct starpu_perfmodel m_syrk = { .type = STARPU_HISTORY_BASED, .symbol = "dag_bench_dsyrk" };
static struct starpu_perfmodel m_gemm = { .type = STARPU_HISTORY_BASED, .symbol = "dag_bench_dgemm" };
static struct starpu_codelet cl_potrf = { .cpu_funcs = { potrf_cpu }, .nbuffers = 2, .modes = { STARPU_RW, STARPU_W }, .model = &m_potrf };
static struct starpu_codelet cl_trsm = { .cpu_funcs = { trsm_cpu }, .nbuffers = 2, .modes = { STARPU_R, STARPU_RW }, .model = &m_trsm };
static struct starpu_codelet cl_syrk = { .cpu_funcs = { syrk_cpu }, .nbuffers = 2, .modes = { STARPU_R, STARPU_RW }, .model = &m_syrk };
static struct starpu_codelet cl_gemm = { .cpu_funcs = { gemm_cpu }, .nbuffers = 3, .modes = { STARPU_R, STARPU_R, STARPU_RW }, .model = &m_gemm };

static double factorise(double **t, long n, long nb) {
    long nt = n / nb;
    starpu_data_handle_t *h = (starpu_data_handle_t *)calloc((size_t)(nt * nt + nt), sizeof *h);
    for (long k = 0; k < nt * nt + nt; k++)
        if (t[k] && (k >= nt * nt || k % nt >= k / nt))   /* lower tiles, and the inverses */
            starpu_matrix_data_register(&h[k], STARPU_MAIN_RAM, (uintptr_t)t[k], (uint32_t)nb, (uint32_t)nb,
                                        (uint32_t)nb, sizeof(double));
#define H(i, j) h[(i) + (j) * nt]
    double t0 = now_s();
    for (long k = 0; k < nt; k++) {
        int last = k == nt - 1;
        starpu_task_insert(&cl_potrf, STARPU_RW, H(k, k), STARPU_W, h[nt * nt + k], STARPU_VALUE, &last, sizeof last,
                           STARPU_PRIORITY, chol_prio_potrf(nt, k), 0);
        for (long i = k + 1; i < nt; i++)
            starpu_task_insert(&cl_trsm, STARPU_R, h[nt * nt + k], STARPU_RW, H(i, k), STARPU_PRIORITY,
                               chol_prio_panel(nt, k, i), 0);
        for (long i = k + 1; i < nt; i++) {
            starpu_task_insert(&cl_syrk, STARPU_R, H(i, k), STARPU_RW, H(i, i), STARPU_PRIORITY, chol_prio_syrk(nt, i), 0);
            for (long j = k + 1; j < i; j++)
                starpu_task_insert(&cl_gemm, STARPU_R, H(i, k), STARPU_R, H(j, k), STARPU_RW, H(i, j), STARPU_PRIORITY,
                                   chol_prio_gemm(nt, i, j), 0);
        }
    }
    starpu_task_wait_for_all();
    double s = now_s() - t0;
    for (long k = 0; k < nt * nt + nt; k++)
        if (h[k]) starpu_data_unregister(h[k]);
#undef H
    free(h);
    return s;
}

int main(int argc, char **argv) {
    if (argc < 3) return 2;
    long n = atol(argv[1]), nb = atol(argv[2]);
    nb_global = (int)nb;
    setenv("STARPU_SILENT", "1", 0);
    openblas_set_num_threads(1);
    struct starpu_conf conf;
    starpu_conf_init(&conf);
    conf.ncuda = 0;
    conf.nopencl = 0;
    if (starpu_init(&conf) != 0) return 1;
    long wn = 8 * nb < n ? 8 * nb : n;   /* calibrates the models for this tile size */
    double **w = chol_tiles(wn, nb);
    factorise(w, wn, nb);
    chol_free_tiles(w, wn, nb);
    double **t = chol_tiles(n, nb);
    double s = factorise(t, n, nb);
    starpu_shutdown();
    chol_report(n, s, chol_checksum_tiles(t, n, nb));
    chol_free_tiles(t, n, nb);
    return 0;
}
