/* dag_table.h: every operation against a plain C reference on random
   tables (empty partitions, one row, strings with commas, quotes and line
   ends, NaNs, duplicate and missing keys), on 1 to 8 threads. Built with
   -DDAG_BACKEND_MPI it is the same suite on every rank (make test-mpi runs
   it on 2 and 4): the tables' partitions are dealt over the ranks, and
   every rank checks the whole result. */
#define _POSIX_C_SOURCE 200809L   /* strdup */
#define DAG_IMPLEMENTATION
#include "dag_table.h"
#include "test.h"
#ifdef DAG_BACKEND_MPI
#include "mpi_harness.h"
#define RUN_TEST(name) RUN_ALL(name)
#define AGREE() agree_on_failures()
#define LOGGER quiet_logger
#define LAST_ERROR last_log
#else
static char last_error[2048];
static void logger(dag_log_level level, int item, const char *msg, void *user) {
    (void)item, (void)user;
    if (level == DAG_LOG_ERROR) snprintf(last_error, sizeof last_error, "%s", msg);
}
#define RUN_TEST(name) RUN(name)
#define AGREE() ((void)0)
#define LOGGER logger
#define LAST_ERROR last_error
#endif

/* ---- a random table in host columns: id (row number), k1 int32 keys, k2 string keys, v doubles, w int64 ---- */
enum { COLS = 5 };
static const char *const NAMES[COLS] = { "id", "k1", "k2", "v", "w" };
static const char *const WORDS[] = { "a", "b,c", "say \"hi\"", "two\nlines", "NA", "", "zz" };
typedef struct host_table {
    int64_t rows;
    int32_t *id, *k1;
    double *v;
    int64_t *w, *off;
    char *chars;
    uint8_t *valid[COLS];
    dag_table_column cols[COLS];
} host_table;
#ifdef DAG_BACKEND_MPI
#define rng rnd   /* mpi_harness.h has the same generator */
#else
static unsigned rng(unsigned *s) { *s = *s * 1103515245u + 12345u; return (*s >> 8) & 0xffffff; }
#endif
static bool present(const host_table *h, int c, int64_t i) { return (h->valid[c][i >> 3] >> (i & 7)) & 1; }
static void make_table(host_table *h, int64_t rows, unsigned seed) {
    memset(h, 0, sizeof *h);
    h->rows = rows;
    h->id = calloc((size_t)rows + 1, 4), h->k1 = calloc((size_t)rows + 1, 4), h->v = calloc((size_t)rows + 1, 8);
    h->w = calloc((size_t)rows + 1, 8), h->off = calloc((size_t)rows + 1, 8), h->chars = calloc((size_t)rows * 12 + 1, 1);
    for (int c = 0; c < COLS; c++) h->valid[c] = calloc((size_t)rows / 8 + 1, 1);
    for (int64_t i = 0; i < rows; i++) {
        h->id[i] = (int32_t)i;
        h->k1[i] = (int32_t)(rng(&seed) % 5) - 2;
        const char *word = WORDS[rng(&seed) % 7];
        h->off[i + 1] = h->off[i] + (int64_t)strlen(word);
        memcpy(h->chars + h->off[i], word, strlen(word));
        unsigned r = rng(&seed) % 20;
        h->v[i] = r == 0 ? NAN : r == 1 ? INFINITY : ((double)(rng(&seed) % 161) - 80) / 8;   /* eighths: sums are exact */
        h->w[i] = (int64_t)(rng(&seed) % 1000) - 500;
        for (int c = 0; c < COLS; c++) {
            bool is = c == 0 || (c == 2 ? *word != 0 : rng(&seed) % 7 != 0);   /* an empty string is missing, as in a CSV */
            if (is) h->valid[c][i >> 3] |= (uint8_t)(1u << (i & 7));
        }
    }
    dag_table_type types[COLS] = { DAG_TABLE_I32, DAG_TABLE_I32, DAG_TABLE_STR, DAG_TABLE_F64, DAG_TABLE_I64 };
    void *values[COLS] = { h->id, h->k1, h->off, h->v, h->w };
    for (int c = 0; c < COLS; c++) h->cols[c] = (dag_table_column){ NAMES[c], types[c], values[c], c == 2 ? h->chars : NULL, h->valid[c] };
}
static void free_table(host_table *h) {
    free(h->id), free(h->k1), free(h->v), free(h->w), free(h->off), free(h->chars);
    for (int c = 0; c < COLS; c++) free(h->valid[c]);
}

/* ---- rows as text, the form results are compared in ---- */
static void cell_text(char *out, size_t size, const dag_table_column *c, int64_t i) {
    if (!((c->valid[i >> 3] >> (i & 7)) & 1)) { snprintf(out, size, "-"); return; }
    switch (c->type) {
    case DAG_TABLE_I32: snprintf(out, size, "%d", ((int32_t *)c->values)[i]); break;
    case DAG_TABLE_I64: snprintf(out, size, "%lld", (long long)((int64_t *)c->values)[i]); break;
    case DAG_TABLE_F32: snprintf(out, size, "%.9g", ((float *)c->values)[i]); break;
    case DAG_TABLE_F64: snprintf(out, size, "%.17g", ((double *)c->values)[i]); break;
    default: {
        const int64_t *o = (const int64_t *)c->values;
        snprintf(out, size, "'%.*s'", (int)(o[i + 1] - o[i]), c->chars + o[i]);
    }
    }
}
static char *row_text(const dag_table_column *cols, int n, int64_t i) {
    char buf[512], cell[128];
    buf[0] = 0;
    for (int c = 0; c < n; c++) {
        cell_text(cell, sizeof cell, &cols[c], i);
        strncat(buf, cell, sizeof buf - strlen(buf) - 2);
        strcat(buf, "|");
    }
    return strdup(buf);
}
typedef struct rows_text { char **row; int64_t n, cap; } rows_text;
static void add_row(rows_text *r, char *s) {
    if (r->n == r->cap) r->cap = r->cap ? 2 * r->cap : 64, r->row = realloc(r->row, sizeof(char *) * (size_t)r->cap);
    r->row[r->n++] = s;
}
static void free_rows(rows_text *r) {
    for (int64_t i = 0; i < r->n; i++) free(r->row[i]);
    free(r->row);
    memset(r, 0, sizeof *r);
}
static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }
/* the rows of a table (collected) as text */
static rows_text table_rows(dag_table *t) {
    rows_text r = { 0 };
    dag_table_column *cols = NULL;
    if (!t || dag_table_collect(t, &cols) != DAG_OK) return r;
    for (int64_t i = 0; i < dag_table_rows(t); i++) add_row(&r, row_text(cols, dag_table_num_columns(t), i));
    dag_table_columns_free(cols, dag_table_num_columns(t));
    return r;
}
/* rows equal in order (ordered), or as multisets */
static int same_rows(rows_text *a, rows_text *b, bool ordered) {
    if (a->n != b->n) {
        printf("     %lld rows, expected %lld\n", (long long)a->n, (long long)b->n);
        return 0;
    }
    if (!ordered && a->n > 1) qsort(a->row, (size_t)a->n, sizeof(char *), cmp_str), qsort(b->row, (size_t)b->n, sizeof(char *), cmp_str);
    for (int64_t i = 0; i < a->n; i++)
        if (strcmp(a->row[i], b->row[i])) {
            printf("     row %lld: %s, expected %s\n", (long long)i, a->row[i], b->row[i]);
            return 0;
        }
    return 1;
}
/* the reference's rows: the columns of h picked by cols, at rows idx */
static char *host_row(const host_table *h, const int *cols, int n, int64_t i) {
    dag_table_column pick[COLS];
    for (int c = 0; c < n; c++) pick[c] = h->cols[cols[c]];
    return row_text(pick, n, i);
}

/* sizes to try: empty, one row, and random sizes over random partitions (some empty after a filter) */
static const int64_t SIZES[][2] = { { 0, 4 }, { 1, 1 }, { 37, 5 }, { 300, 64 }, { 1000, 333 }, { 2000, 2000 } };
enum { NSIZES = sizeof SIZES / sizeof SIZES[0] };
static const int ALL[COLS] = { 0, 1, 2, 3, 4 };

TEST(host_columns_round_trip_through_a_table_with_their_missing_values) {
    for (int s = 0; s < NSIZES; s++) {
        host_table h;
        make_table(&h, SIZES[s][0], 11 + (unsigned)s);
        dag_table *t = dag_table_from_columns(h.cols, COLS, h.rows, SIZES[s][1]);
        dag_table *w = dag_table_wrap_columns(h.cols, COLS, h.rows, SIZES[s][1]);
        CHECK(t && w);
        CHECK_EQ_INT(dag_table_rows(t), h.rows);
        CHECK_EQ_INT(dag_table_num_partitions(t), h.rows ? (h.rows + SIZES[s][1] - 1) / SIZES[s][1] : 1);
        rows_text want = { 0 }, got = table_rows(t), wrapped = table_rows(w);
        for (int64_t i = 0; i < h.rows; i++) add_row(&want, host_row(&h, ALL, COLS, i));
        CHECK(same_rows(&got, &want, true));
        CHECK(same_rows(&wrapped, &want, true));
        free_rows(&want), free_rows(&got), free_rows(&wrapped);
        dag_table_free(t), dag_table_free(w);
        free_table(&h);
    }
    AGREE();
}

static char csv_path[256];
static const char *tmp_csv(const char *what) {
    snprintf(csv_path, sizeof csv_path, "/tmp/dag_test_table_%s_%d.csv", what, dag_num_ranks());
    return csv_path;
}
TEST(a_table_written_as_csv_reads_back_the_same_in_small_chunks_and_large) {
    dag_table_type types[COLS] = { DAG_TABLE_I32, DAG_TABLE_I32, DAG_TABLE_STR, DAG_TABLE_F64, DAG_TABLE_I64 };
    for (int s = 0; s < NSIZES; s++) {
        host_table h;
        make_table(&h, SIZES[s][0], 21 + (unsigned)s);
        dag_table *t = dag_table_from_columns(h.cols, COLS, h.rows, SIZES[s][1]);
        const char *path = tmp_csv("round");
        CHECK_EQ_INT(dag_table_write_csv(t, path), DAG_OK);
        rows_text want = table_rows(t);
        for (int64_t chunk = 7; chunk < 1 << 20; chunk *= 97) {   /* chunk edges inside quoted fields too */
            dag_table_csv_options o = { 0, 0, types, COLS, chunk };
            dag_table *r = dag_table_read_csv(path, &o);
            if (!r) printf("     chunk %lld: %s\n", (long long)chunk, LAST_ERROR);
            CHECK(r != NULL);
            rows_text got = table_rows(r);
            rows_text again = table_rows(t);
            CHECK(same_rows(&got, &again, true));
            free_rows(&got), free_rows(&again);
            dag_table_free(r);
        }
        free_rows(&want);
        dag_table_free(t);
        free_table(&h);
    }
    AGREE();
}

static void write_text(const char *path, const char *text) {
    if (dag_rank() == 0) {
        FILE *f = fopen(path, "wb");
        fputs(text, f);
        fclose(f);
    }
#ifdef DAG_BACKEND_MPI
    MPI_Barrier(MPI_COMM_WORLD);
#endif
}
TEST(csv_types_are_inferred_empty_fields_are_missing_and_a_bad_row_names_its_line) {
    const char *path = tmp_csv("infer");
    write_text(path, "a,b,c,d\n1,2.5,x,\n-7,,\"\",\"q,\"\"r\"\"\"\r\n3,1e3,NA,9\n\n");
    dag_table *t = dag_table_read_csv(path, NULL);
    CHECK(t != NULL);
    CHECK_EQ_INT(dag_table_rows(t), 3);
    CHECK_EQ_INT(dag_table_column_type(t, 0), DAG_TABLE_I64);
    CHECK_EQ_INT(dag_table_column_type(t, 1), DAG_TABLE_F64);
    CHECK_EQ_INT(dag_table_column_type(t, 2), DAG_TABLE_STR);
    rows_text got = table_rows(t);
    CHECK(got.n == 3 && !strcmp(got.row[0], "1|2.5|'x'|-|") && !strcmp(got.row[1], "-7|-|-|'q,\"r\"'|") &&
          !strcmp(got.row[2], "3|1000|'NA'|'9'|"));
    free_rows(&got);
    dag_table_free(t);
    write_text(path, "a,b\n1,2\n3,4\n5\n6,7\n");
    LAST_ERROR[0] = 0;
    CHECK(dag_table_read_csv(path, NULL) == NULL);
    /* (over ranks the rank layer's own words about the failed send come after the parser's: the last line is theirs) */
    CHECK(dag_num_ranks() > 1 || strstr(LAST_ERROR, "line 4") != NULL);
    write_text(path, "a,b\n1,2\n3,x\n");
    dag_table_type ints[2] = { DAG_TABLE_I32, DAG_TABLE_I32 };
    dag_table_csv_options o = { 0, 0, ints, 2, 0 };
    LAST_ERROR[0] = 0;
    CHECK(dag_table_read_csv(path, &o) == NULL);
    CHECK(dag_num_ranks() > 1 || (strstr(LAST_ERROR, "line 3") && strstr(LAST_ERROR, "column 'b'")));
    AGREE();
}

/* ---- filter, head, select, map, repartition ---- */
static void keep_positive_v(const dag_table_view *in, uint8_t *keep, void *user) {
    (void)user;
    const double *v = (const double *)in->columns[3].values;
    for (int64_t i = 0; i < in->rows; i++) keep[i] = ((in->columns[3].valid[i >> 3] >> (i & 7)) & 1) && v[i] > 0.5;
}
static void w_twice(const dag_table_view *in, dag_table_column *out, int n, void *user) {
    (void)n, (void)user;
    const int64_t *w = (const int64_t *)in->columns[4].values;
    for (int64_t i = 0; i < in->rows; i++) {
        ((double *)out[0].values)[i] = 2.0 * (double)w[i];
        if (!((in->columns[4].valid[i >> 3] >> (i & 7)) & 1)) out[0].valid[i >> 3] &= (uint8_t)~(1u << (i & 7));
    }
}
DAG_KERNEL(negate_i64, ((DAG_GLOBAL const long *, x), (DAG_GLOBAL long *, y)),
    size_t i = DAG_INDEX();
    y[i] = -x[i];
)
TEST(filter_where_head_select_map_and_repartition_equal_plain_loops) {
    for (int s = 0; s < NSIZES; s++) {
        host_table h;
        make_table(&h, SIZES[s][0], 31 + (unsigned)s);
        dag_table *t = dag_table_from_columns(h.cols, COLS, h.rows, SIZES[s][1]);
        dag_table *f = dag_table_filter(t, keep_positive_v, NULL, 0), *g = dag_table_where(t, "v", DAG_TABLE_GT, 0.5);
        dag_table *fr = dag_table_filter(t, keep_positive_v, NULL, 7), *ws = dag_table_where_str(t, "k2", DAG_TABLE_EQ, "b,c");
        rows_text want = { 0 }, want_w = { 0 }, want_s = { 0 }, want_head = { 0 }, want_sel = { 0 }, want_map = { 0 };
        for (int64_t i = 0; i < h.rows; i++) {
            if (present(&h, 3, i) && h.v[i] > 0.5) add_row(&want, host_row(&h, ALL, COLS, i));
            if (present(&h, 3, i) && (h.v[i] > 0.5 || h.v[i] != h.v[i])) add_row(&want_w, host_row(&h, ALL, COLS, i));   /* NaN > all */
            if (present(&h, 2, i) && h.off[i + 1] - h.off[i] == 3 && !memcmp(h.chars + h.off[i], "b,c", 3))
                add_row(&want_s, host_row(&h, ALL, COLS, i));
            if (i < 5) add_row(&want_head, host_row(&h, ALL, COLS, i));
            int sel[2] = { 4, 2 };
            add_row(&want_sel, host_row(&h, sel, 2, i));
            char buf[600], *r = host_row(&h, ALL, COLS, i);
            if (present(&h, 4, i)) snprintf(buf, sizeof buf, "%s%.17g|%lld|", r, 2.0 * (double)h.w[i], -(long long)h.w[i]);
            else snprintf(buf, sizeof buf, "%s-|-|", r);
            free(r);
            add_row(&want_map, strdup(buf));
        }
        rows_text got = table_rows(f), got2 = table_rows(g), got3 = table_rows(fr), got4 = table_rows(ws);
        CHECK(same_rows(&got, &want, true) && same_rows(&got2, &want_w, true) && same_rows(&got3, &want, true));
        CHECK(same_rows(&got4, &want_s, true));
        CHECK(!fr || dag_table_num_partitions(fr) == (want.n ? (want.n + 6) / 7 : 1));
        for (int64_t p = 0; fr && p + 1 < dag_table_num_partitions(fr); p++) CHECK_EQ_INT(dag_table_partition_rows(fr, p), 7);
        dag_table *hd = dag_table_head(t, 5);
        const char *sel_names[2] = { "w", "k2" }, *drop_names[3] = { "id", "k1", "v" };
        dag_table *sel = dag_table_select(t, sel_names, 2), *drop = dag_table_drop(t, drop_names, 3);
        dag_table_new_column nc = { "w2", DAG_TABLE_F64 };
        dag_table *m = dag_table_map(t, w_twice, NULL, &nc, 1);
        dag_table *mk = m ? dag_table_map_kernel(m, negate_i64, "w", "neg", DAG_TABLE_I64) : NULL;
        rows_text gh = table_rows(hd), gs = table_rows(sel), gd = table_rows(drop), gm = table_rows(mk);
        CHECK(same_rows(&gh, &want_head, true));
        CHECK(same_rows(&gs, &want_sel, true));
        rows_text want_drop = { 0 };
        for (int64_t i = 0; i < h.rows; i++) {
            int keep[2] = { 2, 4 };
            add_row(&want_drop, host_row(&h, keep, 2, i));
        }
        CHECK(same_rows(&gd, &want_drop, true));
        CHECK(same_rows(&gm, &want_map, true));
        free_rows(&want), free_rows(&want_w), free_rows(&want_s), free_rows(&want_head), free_rows(&want_sel), free_rows(&want_map), free_rows(&want_drop);
        free_rows(&got), free_rows(&got2), free_rows(&got3), free_rows(&got4), free_rows(&gh), free_rows(&gs), free_rows(&gd), free_rows(&gm);
        dag_table_free(f), dag_table_free(g), dag_table_free(fr), dag_table_free(ws), dag_table_free(hd), dag_table_free(sel);
        dag_table_free(drop), dag_table_free(m), dag_table_free(mk), dag_table_free(t);
        free_table(&h);
    }
    AGREE();
}

/* ---- reduce and groupby ---- */
typedef struct ref_state { int64_t n, rows, isum; double dsum, lo, hi; int64_t ilo, ihi; } ref_state;
static int nan_cmp(double a, double b) { return (a != a || b != b) ? (a != a) - (b != b) : (a > b) - (a < b); }
static void ref_step(ref_state *r, const host_table *h, int col, int64_t i) {
    r->rows++;
    if (!present(h, col, i)) return;
    double x = col == 3 ? h->v[i] : (double)h->w[i];
    int64_t xi = col == 4 ? h->w[i] : 0;
    if (!r->n || nan_cmp(x, r->lo) < 0) r->lo = x, r->ilo = xi;
    if (!r->n || nan_cmp(x, r->hi) > 0) r->hi = x, r->ihi = xi;
    r->n++, r->isum += xi, r->dsum += x;
}
/* an aggregate of a reference state as the text a result cell has */
static void ref_text(char *out, size_t size, const ref_state *r, dag_table_agg op, int col) {
    bool ints = col == 4;
    switch (op) {
    case DAG_TABLE_COUNT: snprintf(out, size, "%lld", (long long)r->n); break;
    case DAG_TABLE_COUNT_ALL: snprintf(out, size, "%lld", (long long)r->rows); break;
    case DAG_TABLE_SUM: if (!r->n) snprintf(out, size, "-"); else if (ints) snprintf(out, size, "%lld", (long long)r->isum); else snprintf(out, size, "%.17g", r->dsum); break;
    case DAG_TABLE_MIN: if (!r->n) snprintf(out, size, "-"); else if (ints) snprintf(out, size, "%lld", (long long)r->ilo); else snprintf(out, size, "%.17g", r->lo); break;
    case DAG_TABLE_MAX: if (!r->n) snprintf(out, size, "-"); else if (ints) snprintf(out, size, "%lld", (long long)r->ihi); else snprintf(out, size, "%.17g", r->hi); break;
    default: if (!r->n) snprintf(out, size, "-"); else snprintf(out, size, "%.17g", ints ? (double)r->isum / (double)r->n : r->dsum / (double)r->n); break;
    }
}
static const dag_table_agg AGGS[] = { DAG_TABLE_SUM, DAG_TABLE_MIN, DAG_TABLE_MAX, DAG_TABLE_COUNT, DAG_TABLE_COUNT_ALL, DAG_TABLE_MEAN };
enum { NAGGS = sizeof AGGS / sizeof AGGS[0] };
TEST(reduce_follows_duckdb_rules_for_missing_values_and_nan) {
    for (int s = 0; s < NSIZES; s++) {
        host_table h;
        make_table(&h, SIZES[s][0], 41 + (unsigned)s);
        dag_table *t = dag_table_from_columns(h.cols, COLS, h.rows, SIZES[s][1]);
        for (int col = 3; col <= 4; col++)
            for (int a = 0; a < NAGGS; a++) {
                ref_state r = { 0 };
                for (int64_t i = 0; i < h.rows; i++) ref_step(&r, &h, col, i);
                dag_table_aggregate agg = { AGGS[a], NAMES[col], NULL, NULL };
                dag_table_value v;
                CHECK_EQ_INT(dag_table_reduce(t, &agg, &v), DAG_OK);
                char got[64], want[64];
                if (!v.present) snprintf(got, sizeof got, "-");
                else if (v.type == DAG_TABLE_I64) snprintf(got, sizeof got, "%lld", (long long)v.i);
                else snprintf(got, sizeof got, "%.17g", v.d);
                ref_text(want, sizeof want, &r, AGGS[a], col);
                if (strcmp(got, want)) printf("     %s of %s over %lld rows: %s, expected %s\n", "aggregate", NAMES[col], (long long)h.rows, got, want);
                CHECK(!strcmp(got, want));
            }
        /* the sample variance against two passes over the values (NaN-free rows only: w) */
        double mean = 0, m2 = 0;
        int64_t n = 0;
        for (int64_t i = 0; i < h.rows; i++) if (present(&h, 4, i)) mean += (double)h.w[i], n++;
        mean = n ? mean / (double)n : 0;
        for (int64_t i = 0; i < h.rows; i++) if (present(&h, 4, i)) m2 += ((double)h.w[i] - mean) * ((double)h.w[i] - mean);
        dag_table_aggregate var = { DAG_TABLE_VAR, "w", NULL, NULL }, sd = { DAG_TABLE_SD, "w", NULL, NULL };
        dag_table_value vv, vs;
        CHECK_EQ_INT(dag_table_reduce(t, &var, &vv), DAG_OK);
        CHECK_EQ_INT(dag_table_reduce(t, &sd, &vs), DAG_OK);
        CHECK(vv.present == (n > 1) && vs.present == (n > 1));
        CHECK(n < 2 || (fabs(vv.d - m2 / (double)(n - 1)) <= 1e-9 * (1 + vv.d) && fabs(vs.d - sqrt(vv.d)) < 1e-9 * (1 + vs.d)));
        dag_table_free(t);
        free_table(&h);
    }
    AGREE();
}

/* a user aggregate: the largest absolute value */
static void absmax_init(void *s) { *(double *)s = 0; }
static void absmax_step(void *s, double x) { if (fabs(x) > *(double *)s) *(double *)s = fabs(x); }
static void absmax_merge(void *s, const void *o) { if (*(const double *)o > *(double *)s) *(double *)s = *(const double *)o; }
static int absmax_finish(const void *s, double *out) { *out = *(const double *)s; return 1; }
static const dag_table_user_agg ABSMAX = { sizeof(double), absmax_init, absmax_step, absmax_merge, absmax_finish };

TEST(groupby_on_two_keys_with_missing_keys_equals_a_plain_grouping) {
    for (int s = 0; s < NSIZES; s++) {
        host_table h;
        make_table(&h, SIZES[s][0], 51 + (unsigned)s);
        dag_table *t = dag_table_from_columns(h.cols, COLS, h.rows, SIZES[s][1]);
        const char *keys[2] = { "k1", "k2" };
        dag_table_aggregate aggs[NAGGS * 2 + 1];
        for (int a = 0; a < NAGGS; a++) {
            aggs[2 * a] = (dag_table_aggregate){ AGGS[a], AGGS[a] == DAG_TABLE_COUNT_ALL ? NULL : "v", NULL, NULL };
            aggs[2 * a + 1] = (dag_table_aggregate){ AGGS[a], "w", AGGS[a] == DAG_TABLE_COUNT_ALL ? "n_w" : NULL, NULL };
        }
        aggs[2 * NAGGS] = (dag_table_aggregate){ DAG_TABLE_USER, "w", "absmax", &ABSMAX };
        dag_table *g = dag_table_groupby(t, keys, 2, aggs, 2 * NAGGS + 1);
        CHECK(g != NULL);
        /* the reference: groups by a linear search of the keys seen */
        int64_t ng = 0, *first = calloc((size_t)h.rows + 1, 8), *group = calloc((size_t)h.rows + 1, 8);
        for (int64_t i = 0; i < h.rows; i++) {
            int64_t e = 0;
            for (; e < ng; e++) {
                int64_t j = first[e];
                bool k1 = present(&h, 1, i) == present(&h, 1, j) && (!present(&h, 1, i) || h.k1[i] == h.k1[j]);
                bool k2 = present(&h, 2, i) == present(&h, 2, j) && (!present(&h, 2, i) || (h.off[i + 1] - h.off[i] == h.off[j + 1] - h.off[j] &&
                          !memcmp(h.chars + h.off[i], h.chars + h.off[j], (size_t)(h.off[i + 1] - h.off[i]))));
                if (k1 && k2) break;
            }
            if (e == ng) first[ng++] = i;
            group[i] = e;
        }
        rows_text want = { 0 };
        for (int64_t e = 0; e < ng; e++) {
            int kc[2] = { 1, 2 };
            char buf[1024], cell[64], *k = host_row(&h, kc, 2, first[e]);
            snprintf(buf, sizeof buf, "%s", k);
            free(k);
            double absmax = 0;
            bool any = false;
            for (int a = 0; a < NAGGS; a++)
                for (int col = 3; col <= 4; col++) {
                    ref_state r = { 0 };
                    for (int64_t i = 0; i < h.rows; i++)
                        if (group[i] == e) ref_step(&r, &h, col, i);
                    ref_text(cell, sizeof cell, &r, AGGS[a], col);
                    strcat(buf, cell), strcat(buf, "|");
                }
            for (int64_t i = 0; i < h.rows; i++)
                if (group[i] == e && present(&h, 4, i)) any = true, absmax = fabs((double)h.w[i]) > absmax ? fabs((double)h.w[i]) : absmax;
            if (any) snprintf(cell, sizeof cell, "%.17g|", absmax);
            else snprintf(cell, sizeof cell, "-|");
            strcat(buf, cell);
            add_row(&want, strdup(buf));
        }
        rows_text got = table_rows(g);
        CHECK(same_rows(&got, &want, false));
        CHECK_EQ_INT(dag_table_column_index(g, "sum_v"), 2);
        free_rows(&got), free_rows(&want);
        free(first), free(group);
        dag_table_free(g), dag_table_free(t);
        free_table(&h);
    }
    AGREE();
}

/* ---- sort and join ---- */
static int ref_order(const host_table *h, int col, int desc, int64_t a, int64_t b) {
    bool pa = present(h, col, a), pb = present(h, col, b);
    if (!pa || !pb) return pa - pb == 0 ? 0 : pa ? -1 : 1;   /* missing last, whatever the direction */
    int r;
    if (col == 2) {
        int64_t na = h->off[a + 1] - h->off[a], nb = h->off[b + 1] - h->off[b];
        r = memcmp(h->chars + h->off[a], h->chars + h->off[b], (size_t)(na < nb ? na : nb));
        r = r ? (r > 0) - (r < 0) : (na > nb) - (na < nb);
    } else {
        r = col == 3 ? nan_cmp(h->v[a], h->v[b]) : (h->w[a] > h->w[b]) - (h->w[a] < h->w[b]);
    }
    return desc ? -r : r;
}
TEST(sort_is_stable_puts_missing_last_and_nan_above_infinity_both_ways) {
    for (int s = 0; s < NSIZES; s++) {
        host_table h;
        make_table(&h, SIZES[s][0], 61 + (unsigned)s);
        dag_table *t = dag_table_from_columns(h.cols, COLS, h.rows, SIZES[s][1]);
        for (int col = 2; col <= 4; col++)
            for (int desc = 0; desc < 2; desc++) {
                int64_t *idx = malloc(sizeof(int64_t) * (size_t)(h.rows + 1));
                for (int64_t i = 0; i < h.rows; i++) idx[i] = i;
                for (int64_t i = 1; i < h.rows; i++)   /* insertion sort: stable by construction */
                    for (int64_t j = i; j > 0 && ref_order(&h, col, desc, idx[j - 1], idx[j]) > 0; j--) {
                        int64_t x = idx[j]; idx[j] = idx[j - 1]; idx[j - 1] = x;
                    }
                rows_text want = { 0 };
                for (int64_t i = 0; i < h.rows; i++) add_row(&want, host_row(&h, ALL, COLS, idx[i]));
                dag_table *o = dag_table_sort(t, NAMES[col], desc);
                rows_text got = table_rows(o);
                CHECK(same_rows(&got, &want, true));
                free_rows(&got), free_rows(&want);
                dag_table_free(o);
                free(idx);
            }
        dag_table_free(t);
        free_table(&h);
    }
    AGREE();
}

TEST(inner_and_left_joins_on_duplicate_and_missing_keys_equal_nested_loops) {
    for (int s = 1; s < NSIZES - 1; s++) {
        host_table a, b;
        make_table(&a, SIZES[s][0], 71 + (unsigned)s);
        make_table(&b, SIZES[s][0] / 3 + 1, 81 + (unsigned)s);
        dag_table *l = dag_table_from_columns(a.cols, COLS, a.rows, SIZES[s][1]);
        dag_table *r = dag_table_from_columns(b.cols, COLS, b.rows, SIZES[s][1] / 2 + 1);
        const char *keys[2] = { "k1", "k2" };
        for (int kind = DAG_TABLE_INNER; kind <= DAG_TABLE_LEFT; kind++) {
            dag_table *j = dag_table_join(l, r, keys, keys, 2, (dag_table_join_kind)kind);
            CHECK(j != NULL);
            CHECK_EQ_INT(dag_table_column_index(j, "id_right"), 5);
            rows_text want = { 0 };
            int rest[3] = { 0, 3, 4 };
            for (int64_t i = 0; i < a.rows; i++) {
                bool matched = false;
                for (int64_t k = 0; k < b.rows; k++) {
                    bool eq = present(&a, 1, i) && present(&b, 1, k) && present(&a, 2, i) && present(&b, 2, k) && a.k1[i] == b.k1[k] &&
                              a.off[i + 1] - a.off[i] == b.off[k + 1] - b.off[k] &&
                              !memcmp(a.chars + a.off[i], b.chars + b.off[k], (size_t)(a.off[i + 1] - a.off[i]));
                    if (!eq) continue;
                    matched = true;
                    char buf[1024], *x = host_row(&a, ALL, COLS, i), *y = host_row(&b, rest, 3, k);
                    snprintf(buf, sizeof buf, "%s%s", x, y);
                    free(x), free(y);
                    add_row(&want, strdup(buf));
                }
                if (!matched && kind == DAG_TABLE_LEFT) {
                    char buf[1024], *x = host_row(&a, ALL, COLS, i);
                    snprintf(buf, sizeof buf, "%s-|-|-|", x);
                    free(x);
                    add_row(&want, strdup(buf));
                }
            }
            rows_text got = table_rows(j);
            CHECK(same_rows(&got, &want, false));
            free_rows(&got), free_rows(&want);
            dag_table_free(j);
        }
        dag_table_free(l), dag_table_free(r);
        free_table(&a), free_table(&b);
    }
    AGREE();
}

/* ---- tasks of the program on a table's chunks, arrays, and misuse ---- */
DAG_TASK(void, add_ten, (int64_t *, w), (int64_t, n)) {
    for (int64_t i = 0; i < n; i++) w[i] += 10;
}
TEST(a_task_on_a_chunk_orders_with_the_table_operations_and_an_array_becomes_a_table) {
    host_table h;
    make_table(&h, 100, 91);
    dag_table *t = dag_table_from_columns(h.cols, COLS, h.rows, 30);
    for (int64_t p = 0; p < dag_table_num_partitions(t); p++)
        dag_spawn(add_ten, InOut(dag_table_values(t, p, 4)), Val(dag_table_partition_rows(t, p)));
    dag_table_aggregate sum = { DAG_TABLE_SUM, "w", NULL, NULL };
    dag_table_value v;
    CHECK_EQ_INT(dag_table_reduce(t, &sum, &v), DAG_OK);   /* after every add_ten */
    int64_t want = 0;
    for (int64_t i = 0; i < h.rows; i++) want += present(&h, 4, i) ? h.w[i] + 10 : 0;
    CHECK_EQ_INT(v.i, want);
    dag_table_free(t);
    free_table(&h);
    enum { R = 45, C = 3 };
    static double m[R * C];
    for (int i = 0; i < R * C; i++) m[i] = i * 0.5;
    dag_array *a = dag_array_from_host(DAG_F64, R, C, dag_blocks(10, 2), m, DAG_COL_MAJOR, R);
    const char *names[C] = { "x", "y", "z" };
    dag_table *at = dag_table_from_array(a, DAG_F64, names);
    CHECK(at && dag_table_num_partitions(at) == 5 && dag_table_rows(at) == R);
    dag_table_column *cols = NULL;
    CHECK_EQ_INT(dag_table_collect(at, &cols), DAG_OK);
    int bad = 0;
    for (int c = 0; cols && c < C; c++)
        for (int i = 0; i < R; i++) bad += ((double *)cols[c].values)[i] != m[i + c * R];
    CHECK_EQ_INT(bad, 0);
    dag_table_columns_free(cols, C);
    dag_table_free(at);
    dag_array_free(a);
    AGREE();
}
TEST(bad_arguments_are_refused_by_name) {
    host_table h;
    make_table(&h, 10, 5);
    dag_table *t = dag_table_from_columns(h.cols, COLS, h.rows, 4);
    const char *nope[1] = { "nope" };
    LAST_ERROR[0] = 0;
    CHECK(dag_table_select(t, nope, 1) == NULL && (dag_rank() || strstr(LAST_ERROR, "no column 'nope'")));
    dag_table_aggregate bad = { DAG_TABLE_SUM, "k2", NULL, NULL };
    CHECK(dag_table_groupby(t, (const char *[]){ "k1" }, 1, &bad, 1) == NULL && (dag_rank() || strstr(LAST_ERROR, "a string column")));
    CHECK(dag_table_join(t, t, (const char *[]){ "k1" }, (const char *[]){ "k2" }, 1, DAG_TABLE_INNER) == NULL &&
          (dag_rank() || strstr(LAST_ERROR, "cannot be equal")));
    CHECK(dag_table_read_csv("/nonexistent/x.csv", NULL) == NULL && (dag_rank() || strstr(LAST_ERROR, "could not open")));
    CHECK(dag_table_values(t, 99, 0).id == 0 && dag_table_repartition(t, 0) == NULL);
    dag_table_free(t);
    free_table(&h);
    AGREE();
}

static void run_all(void) {
    RUN_TEST(host_columns_round_trip_through_a_table_with_their_missing_values);
    RUN_TEST(a_table_written_as_csv_reads_back_the_same_in_small_chunks_and_large);
    RUN_TEST(csv_types_are_inferred_empty_fields_are_missing_and_a_bad_row_names_its_line);
    RUN_TEST(filter_where_head_select_map_and_repartition_equal_plain_loops);
    RUN_TEST(reduce_follows_duckdb_rules_for_missing_values_and_nan);
    RUN_TEST(groupby_on_two_keys_with_missing_keys_equals_a_plain_grouping);
    RUN_TEST(sort_is_stable_puts_missing_last_and_nan_above_infinity_both_ways);
    RUN_TEST(inner_and_left_joins_on_duplicate_and_missing_keys_equal_nested_loops);
    RUN_TEST(a_task_on_a_chunk_orders_with_the_table_operations_and_an_array_becomes_a_table);
    RUN_TEST(bad_arguments_are_refused_by_name);
}

int main(void) {
    watchdog_start();
#ifdef DAG_BACKEND_MPI
    setup(2);
    run_all();
#else
    const int threads[] = { 1, 2, 3, 8 };
    for (int k = 0; k < 4; k++) {
        dag_setup(&(dag_desc){ .num_threads = threads[k], .logger = { LOGGER, NULL } });
        printf("-- %d thread%s\n", threads[k], threads[k] > 1 ? "s" : "");
        run_all();
        dag_shutdown();
    }
#endif
#ifdef DAG_BACKEND_MPI
    dag_shutdown();
#endif
    return test_summary();
}
