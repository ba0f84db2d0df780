/* table_bench.c: the db-benchmark questions through dag_table.h.

       table_bench groupby|join DATA_DIR N THREADS [QUESTIONS]

   QUESTIONS: the numbers of the questions to run, as "1,5,10" (all when
   left out).

   Prints what bench/table/peers.py prints for DuckDB, polars and pandas:
   one JSON object a line, {"q": "load", "time": s} once the tables are in
   memory, then {"q": "q1", "run": 1, "time": s, "cpu": s, "rows": n,
   "chk": [...]} per question and run. A question's time is making its
   answer (a table), and cpu the process's CPU time meanwhile (all threads);
   the checksum, the sums the benchmark publishes, is taken after, untimed.
   bench/table/run.py runs it beside the peers. */
#define _POSIX_C_SOURCE 200809L   /* clock_gettime */
#define DAG_IMPLEMENTATION
#include "dag_table.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void) {
    struct timespec ts;
    timespec_get(&ts, TIME_UTC);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
static double cpu_now(void) {   /* the process's CPU time, all threads */
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
static void pretty(char *s, size_t size, int64_t x) {   /* 1e7 as the benchmark names it */
    int e = 0;
    while (x >= 10 && x % 10 == 0) x /= 10, e++;
    snprintf(s, size, "%llde%d", (long long)x, e);
}
static dag_table *load(const char *dir, const char *name) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.csv", dir, name);
    dag_table *t = dag_table_read_csv(path, NULL);
    if (!t) {
        fprintf(stderr, "table_bench: cannot read %s\n", path);
        exit(1);
    }
    return t;
}
/* the sum of a column's present values, as a double */
static double column_sum(dag_table *t, const char *column) {
    dag_table_aggregate sum = { .op = DAG_TABLE_SUM, .column = column };
    dag_table_value v;
    if (dag_table_reduce(t, &sum, &v) != DAG_OK || !v.present) return 0;
    return v.type == DAG_TABLE_I64 ? (double)v.i : v.d;
}
/* a question: make() makes the answer, whose columns `sums` are the checksum */
typedef dag_table *(*make_fn)(dag_table *const *tables);
static const char *only;   /* the questions to run ("1,5,10"), NULL: all */
static bool wanted(int q) {
    char word[16];
    snprintf(word, sizeof word, ",%d,", q);
    char *list = only ? malloc(strlen(only) + 3) : NULL;
    if (list) sprintf(list, ",%s,", only);
    bool yes = !only || (list && strstr(list, word));
    free(list);
    return yes;
}
/* nsums < 0: one checksum, the sum of the -nsums columns (q8's two largest, as columns) */
static void question(int q, make_fn make, dag_table *const *tables, const char *const *sums, int nsums) {
    if (!wanted(q)) return;
    for (int run = 1; run <= 2; run++) {
        double t = now(), cpu = cpu_now();
        dag_table *ans = make(tables);
        t = now() - t, cpu = cpu_now() - cpu;
        if (!ans) {
            fprintf(stderr, "table_bench: q%d failed\n", q);
            exit(1);
        }
        printf("{\"q\": \"q%d\", \"run\": %d, \"time\": %.6f, \"cpu\": %.6f, \"rows\": %lld, \"chk\": [", q, run, t, cpu,
               (long long)dag_table_rows(ans));
        double total = 0;
        for (int k = 0; k < (nsums < 0 ? -nsums : nsums); k++) {
            double sum = column_sum(ans, sums[k]);
            if (nsums > 0) printf("%s%.17g", k ? ", " : "", sum);
            total += sum;
        }
        if (nsums < 0) printf("%.17g", total);
        printf("]}\n");
        fflush(stdout);
        dag_table_free(ans);
    }
}

/* >>groupby: q1-q10 on G1_N_1e2_0_0 (id1..id3 strings, id4..id6, v1, v2 integers, v3 double) */
#define AGG(op_, col, as_) { .op = op_, .column = col, .as = as_ }
static dag_table *by(dag_table *x, const char *const *keys, int nkeys, const dag_table_aggregate *aggs, int naggs) {
    return dag_table_groupby(x, keys, nkeys, aggs, naggs);
}
static dag_table *g1(dag_table *const *t) {
    dag_table_aggregate a[] = { AGG(DAG_TABLE_SUM, "v1", "v1") };
    return by(t[0], (const char *[]){ "id1" }, 1, a, 1);
}
static dag_table *g2(dag_table *const *t) {
    dag_table_aggregate a[] = { AGG(DAG_TABLE_SUM, "v1", "v1") };
    return by(t[0], (const char *[]){ "id1", "id2" }, 2, a, 1);
}
static dag_table *g3(dag_table *const *t) {
    dag_table_aggregate a[] = { AGG(DAG_TABLE_SUM, "v1", "v1"), AGG(DAG_TABLE_MEAN, "v3", "v3") };
    return by(t[0], (const char *[]){ "id3" }, 1, a, 2);
}
static dag_table *g4(dag_table *const *t) {
    dag_table_aggregate a[] = { AGG(DAG_TABLE_MEAN, "v1", "v1"), AGG(DAG_TABLE_MEAN, "v2", "v2"), AGG(DAG_TABLE_MEAN, "v3", "v3") };
    return by(t[0], (const char *[]){ "id4" }, 1, a, 3);
}
static dag_table *g5(dag_table *const *t) {
    dag_table_aggregate a[] = { AGG(DAG_TABLE_SUM, "v1", "v1"), AGG(DAG_TABLE_SUM, "v2", "v2"), AGG(DAG_TABLE_SUM, "v3", "v3") };
    return by(t[0], (const char *[]){ "id6" }, 1, a, 3);
}
/* range_v1_v2 = max_v1 - min_v2 (columns 1 and 2 of the grouping) */
static void range(const dag_table_view *in, dag_table_column *out, int n, void *user) {
    (void)n, (void)user;
    const int64_t *hi = (const int64_t *)in->columns[1].values, *lo = (const int64_t *)in->columns[2].values;
    for (int64_t i = 0; i < in->rows; i++) ((int64_t *)out[0].values)[i] = hi[i] - lo[i];
}
static dag_table *g7(dag_table *const *t) {
    dag_table_aggregate a[] = { AGG(DAG_TABLE_MAX, "v1", "max_v1"), AGG(DAG_TABLE_MIN, "v2", "min_v2") };
    dag_table *g = by(t[0], (const char *[]){ "id3" }, 1, a, 2);
    dag_table_new_column r = { "range_v1_v2", DAG_TABLE_I64 };
    dag_table *m = g ? dag_table_map(g, range, NULL, &r, 1) : NULL;
    dag_table *s = m ? dag_table_select(m, (const char *[]){ "id3", "range_v1_v2" }, 2) : NULL;
    dag_table_free(g), dag_table_free(m);
    return s;
}
static dag_table *g6(dag_table *const *t) {
    dag_table_aggregate a[] = { AGG(DAG_TABLE_MEDIAN, "v3", "median_v3"), AGG(DAG_TABLE_SD, "v3", "sd_v3") };
    return by(t[0], (const char *[]){ "id4", "id5" }, 2, a, 2);
}
/* the largest two per group, as two columns (a row per group, where the others have two) */
static dag_table *g8(dag_table *const *t) {
    dag_table_aggregate a[] = { { .op = DAG_TABLE_LARGEST, .column = "v3", .as = "largest1_v3", .n = 1 },
                                { .op = DAG_TABLE_LARGEST, .column = "v3", .as = "largest2_v3", .n = 2 } };
    return by(t[0], (const char *[]){ "id6" }, 1, a, 2);
}
static void square(const dag_table_view *in, dag_table_column *out, int n, void *user) {   /* r2 = corr^2 (column 2) */
    (void)n, (void)user;
    const double *r = (const double *)in->columns[2].values;
    for (int64_t i = 0; i < in->rows; i++) ((double *)out[0].values)[i] = r[i] * r[i];
    memcpy(out[0].valid, in->columns[2].valid, (size_t)(in->rows + 7) / 8);
}
static dag_table *g9(dag_table *const *t) {
    dag_table_aggregate a[] = { { .op = DAG_TABLE_CORR, .column = "v1", .column2 = "v2", .as = "r" } };
    dag_table *g = by(t[0], (const char *[]){ "id2", "id4" }, 2, a, 1);
    dag_table_new_column r2 = { "r2", DAG_TABLE_F64 };
    dag_table *m = g ? dag_table_map(g, square, NULL, &r2, 1) : NULL;
    dag_table *s = m ? dag_table_select(m, (const char *[]){ "id2", "id4", "r2" }, 3) : NULL;
    dag_table_free(g), dag_table_free(m);
    return s;
}
static dag_table *g10(dag_table *const *t) {
    dag_table_aggregate a[] = { AGG(DAG_TABLE_SUM, "v3", "v3"), AGG(DAG_TABLE_COUNT_ALL, NULL, "count") };
    return by(t[0], (const char *[]){ "id1", "id2", "id3", "id4", "id5", "id6" }, 6, a, 2);
}

/* >>join: q1-q5 on J1_N_NA_0_0 (x) and its small, medium and big right tables */
static dag_table *on(dag_table *l, dag_table *r, const char *key, dag_table_join_kind kind) {
    return dag_table_join(l, r, &key, &key, 1, kind);
}
static dag_table *j1(dag_table *const *t) { return on(t[0], t[1], "id1", DAG_TABLE_INNER); }
static dag_table *j2(dag_table *const *t) { return on(t[0], t[2], "id2", DAG_TABLE_INNER); }
static dag_table *j3(dag_table *const *t) { return on(t[0], t[2], "id2", DAG_TABLE_LEFT); }
static dag_table *j4(dag_table *const *t) { return on(t[0], t[2], "id5", DAG_TABLE_INNER); }
static dag_table *j5(dag_table *const *t) { return on(t[0], t[3], "id3", DAG_TABLE_INNER); }

int main(int argc, char **argv) {
    if (argc < 5 || argc > 6 || (strcmp(argv[1], "groupby") && strcmp(argv[1], "join"))) {
        fprintf(stderr, "usage: table_bench groupby|join DATA_DIR N THREADS [QUESTIONS]\n");
        return 2;
    }
    bool join = !strcmp(argv[1], "join");
    only = argc == 6 ? argv[5] : NULL;
    int64_t n = (int64_t)atof(argv[3]);
    dag_setup(&(dag_desc){ .num_threads = atoi(argv[4]) });
    char sn[32], name[4][128];
    pretty(sn, sizeof sn, n);
    snprintf(name[0], sizeof name[0], join ? "J1_%s_NA_0_0" : "G1_%s_1e2_0_0", sn);
    int64_t right[3] = { n / 1000000 > 10 ? n / 1000000 : 10, n / 1000, n };
    for (int k = 0; k < 3; k++) {
        char sr[32];
        pretty(sr, sizeof sr, right[k]);
        snprintf(name[k + 1], sizeof name[k + 1], "J1_%s_%s_0_0", sn, sr);
    }
    dag_table *t[4] = { NULL, NULL, NULL, NULL };
    double start = now(), cpu = cpu_now();
    for (int k = 0; k < (join ? 4 : 1); k++) t[k] = load(argv[2], name[k]);
    printf("{\"q\": \"load\", \"time\": %.6f, \"cpu\": %.6f}\n", now() - start, cpu_now() - cpu);
    if (join) {
        static const char *const sums[] = { "v1", "v2" };
        make_fn q[] = { j1, j2, j3, j4, j5 };
        for (int k = 0; k < 5; k++) question(k + 1, q[k], t, sums, 2);
    } else {
        static const char *const v1[] = { "v1" }, *const v13[] = { "v1", "v3" }, *const v123[] = { "v1", "v2", "v3" };
        static const char *const range_sum[] = { "range_v1_v2" }, *const v3n[] = { "v3", "count" };
        static const char *const median_sd[] = { "median_v3", "sd_v3" }, *const largest[] = { "largest1_v3", "largest2_v3" };
        static const char *const r2[] = { "r2" };
        question(1, g1, t, v1, 1);
        question(2, g2, t, v1, 1);
        question(3, g3, t, v13, 2);
        question(4, g4, t, v123, 3);
        question(5, g5, t, v123, 3);
        question(6, g6, t, median_sd, 2);
        question(7, g7, t, range_sum, 1);
        question(8, g8, t, largest, -2);
        question(9, g9, t, r2, 1);
        question(10, g10, t, v3n, 2);
    }
    for (int k = 0; k < 4; k++) dag_table_free(t[k]);
    dag_shutdown();
    return 0;
}
