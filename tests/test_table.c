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
static atomic_flag last_error_taken = ATOMIC_FLAG_INIT;   /* tasks failing on several workers log at once */
static void logger(dag_log_level level, int item, const char *msg, void *user) {
    (void)item, (void)user;
    if (level != DAG_LOG_ERROR) return;
    while (atomic_flag_test_and_set(&last_error_taken)) {}
    snprintf(last_error, sizeof last_error, "%s", msg);
    atomic_flag_clear(&last_error_taken);
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
/* a number column's value (id, k1, v, w) as a double */
static double host_real(const host_table *h, int c, int64_t i) {
    return c == 0 ? h->id[i] : c == 1 ? h->k1[i] : c == 3 ? h->v[i] : (double)h->w[i];
}
static int nan_cmp(double a, double b) { return (a != a || b != b) ? (a != a) - (b != b) : (a > b) - (a < b); }
/* the order of rows a and b by column col: missing last whatever the direction, NaN above every number, strings bytewise */
static int ref_order(const host_table *h, int col, int desc, int64_t a, int64_t b) {
    bool pa = present(h, col, a), pb = present(h, col, b);
    if (!pa || !pb) return pa - pb == 0 ? 0 : pa ? -1 : 1;
    int r;
    if (col == 2) {
        int64_t na = h->off[a + 1] - h->off[a], nb = h->off[b + 1] - h->off[b];
        r = memcmp(h->chars + h->off[a], h->chars + h->off[b], (size_t)(na < nb ? na : nb));
        r = r ? (r > 0) - (r < 0) : (na > nb) - (na < nb);
    } else {
        r = nan_cmp(host_real(h, col, a), host_real(h, col, b));
    }
    return desc ? -r : r;
}
/* groups of rows by the key columns keys[0..nk) (a linear search of the keys seen): group[i] and each group's first row; the count */
static int64_t ref_groups(const host_table *h, const int *keys, int nk, int64_t *first, int64_t *group) {
    int64_t ng = 0;
    for (int64_t i = 0; i < h->rows; i++) {
        int64_t e = 0;
        for (; e < ng; e++) {
            int k = 0;
            while (k < nk && ref_order(h, keys[k], 0, i, first[e]) == 0 && present(h, keys[k], i) == present(h, keys[k], first[e])) k++;
            if (k == nk) break;
        }
        if (e == ng) first[ng++] = i;
        group[i] = e;
    }
    return ng;
}
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
    case DAG_TABLE_F64: {
        double d = ((double *)c->values)[i];
        snprintf(out, size, "%.17g", d != d ? NAN : d);   /* NaN one way, whatever its sign */
        break;
    }
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

TEST(collect_to_one_rank_gives_that_rank_the_table_and_the_others_nothing) {
    host_table h;
    make_table(&h, 1000, 151);
    dag_table *t = dag_table_from_columns(h.cols, COLS, h.rows, 128);
    rows_text want = { 0 };
    for (int64_t i = 0; i < h.rows; i++) add_row(&want, host_row(&h, ALL, COLS, i));
    for (int rank = 0; rank < dag_num_ranks(); rank += dag_num_ranks() > 1 ? dag_num_ranks() - 1 : 1) {   /* the first and the last */
        dag_table_column *cols = (dag_table_column *)&h;   /* (not NULL: the call sets it) */
        CHECK_EQ_INT(dag_table_collect_to(t, rank, &cols), DAG_OK);
        CHECK((cols != NULL) == (rank == dag_rank()));
        rows_text got = { 0 };
        for (int64_t i = 0; cols && i < h.rows; i++) add_row(&got, row_text(cols, COLS, i));
        CHECK(!cols || same_rows(&got, &want, true));
        free_rows(&got);
        dag_table_columns_free(cols, COLS);
    }
    dag_table_column *none = NULL;
    CHECK_EQ_INT(dag_table_collect_to(t, dag_num_ranks(), &none), DAG_ERR_INVALID_ARGUMENT);
    free_rows(&want);
    dag_table_free(t);
    free_table(&h);
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
        /* another delimiter, no header: read back with the same options */
        dag_table_csv_options semi = { ';', 1, types, COLS, 0 };
        CHECK_EQ_INT(dag_table_write_csv_with(t, path, &semi), DAG_OK);
        FILE *f = fopen(path, "rb");
        char first[4] = { 0 };
        size_t bytes = f ? fread(first, 1, 3, f) : 0;
        CHECK(f && (h.rows ? bytes > 0 && strncmp(first, "id", 2) : bytes == 0));   /* rows only (none: an empty file) */
        if (f) fclose(f);
        dag_table *r = h.rows ? dag_table_read_csv(path, &semi) : NULL;
        rows_text got = table_rows(r);
        CHECK(!h.rows || (r && dag_table_num_columns(r) == COLS && !strcmp(dag_table_column_name(r, 0), "column1")));
        CHECK(!h.rows || same_rows(&got, &want, true));
        free_rows(&got);
        dag_table_free(r);
        free_rows(&want);
        dag_table_free(t);
        free_table(&h);
    }
    AGREE();
}

/* Rank 0 writes the file once every rank is done with the one before (a rank that failed early must not
   see the next file's bytes), and every rank reads it after. */
static void write_text(const char *path, const char *text) {
#ifdef DAG_BACKEND_MPI
    MPI_Barrier(MPI_COMM_WORLD);
#endif
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
    /* lines that end in a CR alone (old Mac files, some exports) are refused by name: they were read as one
       header line, a table of no rows and the columns a, b\r1, x\r2, y; a CR inside an unquoted value too */
    write_text(path, "a,b\r1,x\r2,y\r");
    LAST_ERROR[0] = 0;
    CHECK(dag_table_read_csv(path, NULL) == NULL);
    CHECK(strstr(LAST_ERROR, "line 1") && strstr(LAST_ERROR, "carriage return"));
    write_text(path, "a,b\r\n1,x\ry\r\n");
    LAST_ERROR[0] = 0;
    CHECK(dag_table_read_csv(path, NULL) == NULL);
    CHECK(dag_num_ranks() > 1 || (strstr(LAST_ERROR, "line 2") && strstr(LAST_ERROR, "carriage return")));
    write_text(path, "a,b\r\n1,\"x\ry\"\r\n2,z\r");   /* CRLF, a CR in quotes, a CR before the end */
    t = dag_table_read_csv(path, NULL);
    CHECK(t != NULL);
    got = table_rows(t);
    CHECK(got.n == 2 && !strcmp(got.row[0], "1|'x\ry'|") && !strcmp(got.row[1], "2|'z'|"));
    free_rows(&got);
    dag_table_free(t);
    AGREE();
}

/* A file that one rank cannot open or whose header differs there (a node-local path, a file being
   rewritten): every rank returns NULL and the program goes on; no rank waits for the one that left. */
TEST(a_csv_that_one_rank_cannot_read_alike_fails_on_every_rank) {
    const char *path = tmp_csv("one_rank");
    write_text(path, "a,b\n1,2\n3,4\n");
    char missing[300];
    snprintf(missing, sizeof missing, "%s.not_there", path);
    for (int odd = 0; odd < dag_num_ranks(); odd++) {
        LAST_ERROR[0] = 0;
        dag_table *t = dag_table_read_csv(dag_rank() == odd ? missing : path, NULL);
        CHECK(t == NULL);
        CHECK(dag_rank() != odd || strstr(LAST_ERROR, "not_there"));
        dag_table_free(t);
    }
    char other[300];
    snprintf(other, sizeof other, "%s.other", path);
    write_text(other, "a,b,c\n1,2,3\n");
    LAST_ERROR[0] = 0;
    dag_table *t = dag_table_read_csv(dag_rank() == dag_num_ranks() - 1 ? other : path, NULL);
    CHECK(dag_num_ranks() == 1 ? t != NULL : t == NULL);
    /* the divergence, named: the last word (no lines of the rank layer's own tasks after it) */
    CHECK(dag_num_ranks() == 1 || strstr(LAST_ERROR, "diverged at collective call"));
    dag_table_free(t);
    t = dag_table_read_csv(path, NULL);   /* and the next read is whole */
    CHECK(t && dag_table_rows(t) == 2);
    /* a head or repartition of another count on one rank: each owner would cut by its own */
    int odd = dag_num_ranks() > 1 && dag_rank() == dag_num_ranks() - 1;
    dag_table *h = dag_table_head(t, odd ? 2 : 1), *p = dag_table_repartition(t, odd ? 2 : 1);
    CHECK(dag_num_ranks() == 1 ? h && p : !h && !p && strstr(LAST_ERROR, "diverged at collective call"));
    dag_table_free(h), dag_table_free(p);
    h = dag_table_head(t, 1);   /* alike again: as asked */
    CHECK(h && dag_table_rows(h) == 1);
    dag_table_free(h);
    dag_table_free(t);
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
/* a string per row: k2 and w ("b,c=-12"), a long tail on some; missing where w is */
static int64_t k2_and_w(const dag_table_view *in, int64_t row, char *buf, int64_t size, void *user) {
    (void)user;
    const dag_table_column *k2 = &in->columns[2], *w = &in->columns[4];
    if (!((w->valid[row >> 3] >> (row & 7)) & 1)) return -1;
    const int64_t *off = (const int64_t *)k2->values;
    long long x = ((const int64_t *)w->values)[row];
    return snprintf(buf, (size_t)size + 1, "%.*s=%lld%s", (int)(off[row + 1] - off[row]), k2->chars + off[row], x,
                    x % 5 == 0 ? "/a tail long enough to need more room than the 64 bytes a row is first given, or so" : "");
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
        dag_table *mk = NULL;
        LAST_ERROR[0] = 0;
        DAG_WITH_OPTIONS(.priority = 2) {   /* a table operation inside an options block: its options stay */
            mk = m ? dag_table_map_kernel(m, negate_i64, "w", "neg", DAG_TABLE_I64) : NULL;
        }
        CHECK_EQ_INT(dag_last_region_result(), DAG_OK);
        CHECK(LAST_ERROR[0] == 0);
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
        /* a string column made row by row, replacing k2 */
        dag_table *ms = dag_table_map_string(t, k2_and_w, NULL, "k2");
        rows_text gs2 = table_rows(ms), want_s2 = { 0 };
        for (int64_t i = 0; i < h.rows; i++) {
            int rest[2] = { 0, 1 }, tail[2] = { 3, 4 };
            char buf[1200], cell[400], *x = host_row(&h, rest, 2, i), *y = host_row(&h, tail, 2, i);
            long long w = h.w[i];
            int len = (int)(h.off[i + 1] - h.off[i]);
            if (present(&h, 4, i)) snprintf(cell, sizeof cell, "'%.*s=%lld%s'|", len, h.chars + h.off[i], w,
                                            w % 5 == 0 ? "/a tail long enough to need more room than the 64 bytes a row is first given, or so" : "");
            else snprintf(cell, sizeof cell, "-|");
            snprintf(buf, sizeof buf, "%s%s%s", x, cell, y);
            free(x), free(y);
            add_row(&want_s2, strdup(buf));
        }
        CHECK(ms && dag_table_column_type(ms, 2) == DAG_TABLE_STR && same_rows(&gs2, &want_s2, true));
        free_rows(&gs2), free_rows(&want_s2);
        dag_table_free(ms);
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
                dag_table_aggregate agg = { .op = AGGS[a], .column = NAMES[col] };
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
        dag_table_aggregate var = { .op = DAG_TABLE_VAR, .column = "w" }, sd = { .op = DAG_TABLE_SD, .column = "w" };
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
            aggs[2 * a] = (dag_table_aggregate){ .op = AGGS[a], .column = AGGS[a] == DAG_TABLE_COUNT_ALL ? NULL : "v" };
            aggs[2 * a + 1] = (dag_table_aggregate){ .op = AGGS[a], .column = "w", .as = AGGS[a] == DAG_TABLE_COUNT_ALL ? "n_w" : NULL };
        }
        aggs[2 * NAGGS] = (dag_table_aggregate){ .op = DAG_TABLE_USER, .column = "w", .as = "absmax", .user = &ABSMAX };
        dag_table *g = dag_table_groupby(t, keys, 2, aggs, 2 * NAGGS + 1);
        CHECK(g != NULL);
        int kc[2] = { 1, 2 };
        int64_t *first = calloc((size_t)h.rows + 1, 8), *group = calloc((size_t)h.rows + 1, 8), ng = ref_groups(&h, kc, 2, first, group);
        rows_text want = { 0 };
        for (int64_t e = 0; e < ng; e++) {
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

/* A partition of many groups sends its rows, one of few its partial groups: a bucket takes both. */
TEST(groupby_with_many_groups_in_one_partition_and_few_in_another_equals_a_plain_grouping) {
    host_table h;
    make_table(&h, 6000, 131);
    for (int64_t i = 0; i < h.rows; i++) h.w[i] = i < h.rows / 2 ? i % 3 : i;   /* the key: 3 values, then all distinct */
    dag_table *t = dag_table_from_columns(h.cols, COLS, h.rows, h.rows / 2);
    dag_table_aggregate aggs[NAGGS];
    for (int a = 0; a < NAGGS; a++) aggs[a] = (dag_table_aggregate){ .op = AGGS[a], .column = AGGS[a] == DAG_TABLE_COUNT_ALL ? NULL : "v" };
    dag_table *g = dag_table_groupby(t, &NAMES[4], 1, aggs, NAGGS);
    int key = 4;
    int64_t *first = calloc((size_t)h.rows + 1, 8), *group = calloc((size_t)h.rows + 1, 8), ng = ref_groups(&h, &key, 1, first, group);
    int64_t *start = calloc((size_t)ng + 2, 8);
    ref_state *r = calloc((size_t)ng + 1, sizeof *r);
    for (int64_t i = 0; i < h.rows; i++) ref_step(&r[group[i]], &h, 3, i);
    rows_text want = { 0 }, got = table_rows(g);
    for (int64_t e = 0; e < ng; e++) {
        char buf[1024], cell[64], *k = host_row(&h, &key, 1, first[e]);
        snprintf(buf, sizeof buf, "%s", k);
        free(k);
        for (int a = 0; a < NAGGS; a++) ref_text(cell, sizeof cell, &r[e], AGGS[a], 3), strcat(buf, cell), strcat(buf, "|");
        add_row(&want, strdup(buf));
    }
    CHECK(ng > 2000 && g && dag_table_rows(g) == ng);   /* (a seventh of the keys are missing: one group) */
    CHECK(same_rows(&got, &want, false));
    free_rows(&got), free_rows(&want);
    free(first), free(group), free(start), free(r);
    dag_table_free(g), dag_table_free(t);
    free_table(&h);
    AGREE();
}

/* ---- holistic aggregates (median, n-th largest and smallest, min and max of strings) and correlation ---- */
/* the rows of group e (group NULL: all) where column c is present, ordered by it (stable), into rows; their count */
static int64_t ref_sorted(const host_table *h, int c, const int64_t *group, int64_t e, int desc, int64_t *rows) {
    int64_t m = 0;
    for (int64_t i = 0; i < h->rows; i++) {
        if ((group && group[i] != e) || !present(h, c, i)) continue;
        int64_t j = m++;
        for (; j > 0 && ref_order(h, c, desc, rows[j - 1], i) > 0; j--) rows[j] = rows[j - 1];
        rows[j] = i;
    }
    return m;
}
/* the cell text of the n-th largest (desc) or smallest value of column c in group e */
static void ref_nth(char *out, size_t size, const host_table *h, int c, const int64_t *group, int64_t e, int desc, int64_t nth, int64_t *rows) {
    if (ref_sorted(h, c, group, e, desc, rows) < nth) {
        snprintf(out, size, "-|");
        return;
    }
    char *x = host_row(h, &c, 1, rows[nth - 1]);
    snprintf(out, size, "%s", x);
    free(x);
}
/* the median of column c in group e: the middle value, or the mean of the middle two */
static void ref_median(char *out, size_t size, const host_table *h, int c, const int64_t *group, int64_t e, int64_t *rows) {
    int64_t m = ref_sorted(h, c, group, e, 0, rows);
    if (!m) {
        snprintf(out, size, "-|");
        return;
    }
    /* the mean of the middle two, in a wider type (1e308s do not overflow; an infinity stays one) */
    double lo = host_real(h, c, rows[(m - 1) / 2]), hi = host_real(h, c, rows[m / 2]);
    double med = lo == hi ? lo : (double)(((long double)lo + (long double)hi) / 2);
    snprintf(out, size, "%.17g|", med != med ? NAN : med);
}
/* Pearson's correlation of columns x and y over the rows of group e (group NULL: all) where both are present, in
   two passes; NaN for one such row; *any: there is one */
static bool ref_pair(const host_table *h, int x, int y, const int64_t *group, int64_t e, int64_t i) {
    return (!group || group[i] == e) && present(h, x, i) && present(h, y, i);
}
static double ref_corr(const host_table *h, int x, int y, const int64_t *group, int64_t e, bool *any) {
    double mx = 0, my = 0, sxy = 0, sxx = 0, syy = 0;
    int64_t n = 0;
    for (int64_t i = 0; i < h->rows; i++)
        if (ref_pair(h, x, y, group, e, i)) mx += host_real(h, x, i), my += host_real(h, y, i), n++;
    mx /= (double)(n ? n : 1), my /= (double)(n ? n : 1);
    for (int64_t i = 0; i < h->rows; i++) {
        if (!ref_pair(h, x, y, group, e, i)) continue;
        double a = host_real(h, x, i) - mx, b = host_real(h, y, i) - my;
        sxy += a * b, sxx += a * a, syy += b * b;
    }
    *any = n > 0;
    return sxy / sqrt(sxx * syy);
}
static bool close_to(double got, double want) {
    return (got != got && want != want) || fabs(got - want) <= 1e-9 * (1 + fabs(want));
}
static const dag_table_aggregate HOLISTIC[] = {
    { .op = DAG_TABLE_MEDIAN, .column = "v" }, { .op = DAG_TABLE_MEDIAN, .column = "w" },
    { .op = DAG_TABLE_LARGEST, .column = "v", .n = 2 }, { .op = DAG_TABLE_SMALLEST, .column = "w", .n = 3 },
    { .op = DAG_TABLE_MAX, .column = "k2" }, { .op = DAG_TABLE_MIN, .column = "k2" }, { .op = DAG_TABLE_LARGEST, .column = "k2" },
    { .op = DAG_TABLE_SUM, .column = "w" }, { .op = DAG_TABLE_COUNT_ALL },
};
enum { NHOLISTIC = sizeof HOLISTIC / sizeof HOLISTIC[0] };
/* the reference's row of group e: its keys, then each of HOLISTIC */
static char *holistic_row(const host_table *h, const int *keys, int nk, const int64_t *first, const int64_t *group, int64_t e, int64_t *rows) {
    char buf[2048], cell[256], *k = host_row(h, keys, nk, first[e]);
    snprintf(buf, sizeof buf, "%s", k);
    free(k);
    for (int a = 0; a < NHOLISTIC; a++) {
        const dag_table_aggregate *g = &HOLISTIC[a];
        int c = !g->column ? 0 : g->column[0] == 'v' ? 3 : g->column[0] == 'w' ? 4 : 2;
        ref_state r = { 0 };
        switch (g->op) {
        case DAG_TABLE_MEDIAN: ref_median(cell, sizeof cell, h, c, group, e, rows); break;
        case DAG_TABLE_LARGEST: case DAG_TABLE_MAX: ref_nth(cell, sizeof cell, h, c, group, e, 1, g->n ? g->n : 1, rows); break;
        case DAG_TABLE_SMALLEST: case DAG_TABLE_MIN: ref_nth(cell, sizeof cell, h, c, group, e, 0, g->n ? g->n : 1, rows); break;
        default:
            for (int64_t i = 0; i < h->rows; i++)
                if (group[i] == e) ref_step(&r, h, c == 0 ? 4 : c, i);
            ref_text(cell, sizeof cell, &r, g->op, 4);
            strcat(cell, "|");
        }
        strncat(buf, cell, sizeof buf - strlen(buf) - 1);
    }
    return strdup(buf);
}
TEST(holistic_aggregates_per_group_equal_sorting_each_group) {
    for (int s = 0; s < NSIZES; s++)
        for (int by = 1; by <= 2; by++) {   /* int keys, then string keys (both with missing ones) */
            host_table h;
            make_table(&h, SIZES[s][0], 111 + (unsigned)s);
            dag_table *t = dag_table_from_columns(h.cols, COLS, h.rows, SIZES[s][1]);
            const char *key = NAMES[by];
            dag_table *g = dag_table_groupby(t, &key, 1, HOLISTIC, NHOLISTIC);
            CHECK(g != NULL);
            CHECK_EQ_INT(dag_table_column_type(g, 3), DAG_TABLE_F64);   /* LARGEST of v: v's type */
            CHECK_EQ_INT(dag_table_column_type(g, 5), DAG_TABLE_STR);   /* MAX of k2: a string */
            int64_t *first = calloc((size_t)h.rows + 1, 8), *group = calloc((size_t)h.rows + 1, 8), *rows = calloc((size_t)h.rows + 1, 8);
            int64_t ng = ref_groups(&h, &by, 1, first, group);
            rows_text want = { 0 }, got = table_rows(g);
            for (int64_t e = 0; e < ng; e++) add_row(&want, holistic_row(&h, &by, 1, first, group, e, rows));
            CHECK(same_rows(&got, &want, false));
            free_rows(&got), free_rows(&want);
            free(first), free(group), free(rows);
            dag_table_free(g), dag_table_free(t);
            free_table(&h);
        }
    AGREE();
}
TEST(correlation_per_group_and_holistic_reductions_equal_two_passes_and_sorting) {
    for (int s = 1; s < NSIZES; s++) {
        host_table h;
        make_table(&h, SIZES[s][0], 121 + (unsigned)s);
        dag_table *t = dag_table_from_columns(h.cols, COLS, h.rows, SIZES[s][1]);
        int by = 1;
        int64_t *first = calloc((size_t)h.rows + 1, 8), *group = calloc((size_t)h.rows + 1, 8), *rows = calloc((size_t)h.rows + 1, 8);
        int64_t ng = ref_groups(&h, &by, 1, first, group);
        dag_table_aggregate corr[2] = { { .op = DAG_TABLE_CORR, .column = "w", .column2 = "id", .as = "r" },
                                        { .op = DAG_TABLE_MEDIAN, .column = "w" } };   /* alone: partial states; beside a median: rows */
        for (int naggs = 1; naggs <= 2; naggs++) {
            dag_table *g = dag_table_groupby(t, &NAMES[1], 1, corr, naggs);
            dag_table_column *cols = NULL;
            CHECK(g && dag_table_collect(g, &cols) == DAG_OK && dag_table_rows(g) == ng);
            for (int64_t r = 0; cols && r < dag_table_rows(g); r++) {
                char *key = row_text(cols, 1, r);
                int64_t e = 0;
                while (e < ng) {
                    char *want = host_row(&h, &by, 1, first[e]);
                    bool is = !strcmp(want, key);
                    free(want);
                    if (is) break;
                    e++;
                }
                bool any;
                double want = ref_corr(&h, 4, 0, group, e, &any), got = ((double *)cols[1].values)[r];
                bool has = (cols[1].valid[r >> 3] >> (r & 7)) & 1;
                if (e == ng || has != any || (any && !close_to(got, want))) printf("     group %s: corr %g, expected %g\n", key, got, want);
                CHECK(e < ng && has == any && (!any || close_to(got, want)));
                free(key);
            }
            dag_table_columns_free(cols, naggs + 1);
            dag_table_free(g);
        }
        /* reduce: the same aggregates over the whole table */
        dag_table_value v;
        char got[128], want[128];
        for (int a = 0; a < 4; a++) {
            int c = HOLISTIC[a].column[0] == 'v' ? 3 : 4;
            CHECK_EQ_INT(dag_table_reduce(t, &HOLISTIC[a], &v), DAG_OK);
            if (!v.present) snprintf(got, sizeof got, "-|");
            else if (v.type == DAG_TABLE_I64) snprintf(got, sizeof got, "%lld|", (long long)v.i);
            else snprintf(got, sizeof got, "%.17g|", v.d != v.d ? NAN : v.d);
            if (HOLISTIC[a].op == DAG_TABLE_MEDIAN) ref_median(want, sizeof want, &h, c, NULL, 0, rows);
            else ref_nth(want, sizeof want, &h, c, NULL, 0, HOLISTIC[a].op == DAG_TABLE_LARGEST, HOLISTIC[a].n, rows);
            if (strcmp(got, want)) printf("     reduce %d: %s, expected %s\n", a, got, want);
            CHECK(!strcmp(got, want));
        }
        bool any;
        double r = ref_corr(&h, 4, 0, NULL, 0, &any);
        CHECK_EQ_INT(dag_table_reduce(t, &corr[0], &v), DAG_OK);
        CHECK(v.present == any && close_to(v.d, r));
        free(first), free(group), free(rows);
        dag_table_free(t);
        free_table(&h);
    }
    AGREE();
}

/* ---- sort and join ---- */
/* the order of rows a and b by columns cols[0..n), each descending where desc[k] */
static int ref_order_by(const host_table *h, const int *cols, const int *desc, int n, int64_t a, int64_t b) {
    for (int k = 0; k < n; k++) {
        int r = ref_order(h, cols[k], desc[k], a, b);
        if (r) return r;
    }
    return 0;
}
TEST(sort_is_stable_puts_missing_last_and_nan_above_infinity_both_ways_by_one_column_or_several) {
    static const int BY[][3][2] = {   /* up to three (column, descending) */
        { { 2, 0 } }, { { 2, 1 } }, { { 3, 0 } }, { { 3, 1 } }, { { 4, 0 } }, { { 4, 1 } },
        { { 1, 0 }, { 3, 1 } }, { { 2, 1 }, { 4, 0 }, { 3, 0 } }, { { 1, 1 }, { 2, 0 } },
    };
    static const int NBY[] = { 1, 1, 1, 1, 1, 1, 2, 3, 2 };
    for (int s = 0; s < NSIZES; s++) {
        host_table h;
        make_table(&h, SIZES[s][0], 61 + (unsigned)s);
        dag_table *t = dag_table_from_columns(h.cols, COLS, h.rows, SIZES[s][1]);
        for (int b = 0; b < (int)(sizeof NBY / sizeof NBY[0]); b++) {
            int cols[3], desc[3];
            const char *names[3];
            for (int k = 0; k < NBY[b]; k++) cols[k] = BY[b][k][0], desc[k] = BY[b][k][1], names[k] = NAMES[cols[k]];
            int64_t *idx = malloc(sizeof(int64_t) * (size_t)(h.rows + 1));
            for (int64_t i = 0; i < h.rows; i++) idx[i] = i;
            for (int64_t i = 1; i < h.rows; i++)   /* insertion sort: stable by construction */
                for (int64_t j = i; j > 0 && ref_order_by(&h, cols, desc, NBY[b], idx[j - 1], idx[j]) > 0; j--) {
                    int64_t x = idx[j]; idx[j] = idx[j - 1]; idx[j - 1] = x;
                }
            rows_text want = { 0 };
            for (int64_t i = 0; i < h.rows; i++) add_row(&want, host_row(&h, ALL, COLS, idx[i]));
            dag_table *o = NBY[b] == 1 ? dag_table_sort(t, names[0], desc[0]) : dag_table_sort_by(t, names, desc, NBY[b]);
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
    for (int c = 2; c < 2 * (NSIZES - 1); c++) {   /* the right smaller (over ranks: sent to every rank), and larger (both dealt by key) */
        int s = c / 2;
        host_table a, b;
        make_table(&a, SIZES[s][0], 71 + (unsigned)s);
        make_table(&b, c % 2 ? 2 * SIZES[s][0] : SIZES[s][0] / 3 + 1, 81 + (unsigned)s);
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

/* (where the left probes in place: on one rank, or over ranks with a right table small enough to go to every rank, as here up to 8) */
TEST(a_left_join_on_unique_keys_keeps_the_left_columns_as_they_are) {
    host_table a, b;
    make_table(&a, 2000, 141);
    make_table(&b, 250, 142);   /* ids 0..249, each once: a left row of id < 250 matches one right row, the rest none */
    dag_table *l = dag_table_from_columns(a.cols, COLS, a.rows, 300), *r = dag_table_from_columns(b.cols, COLS, b.rows, 64);
    dag_table *j = dag_table_join(l, r, &NAMES[0], &NAMES[0], 1, DAG_TABLE_LEFT);
    CHECK(j && dag_table_num_partitions(j) == dag_table_num_partitions(l));
    for (int64_t p = 0; j && p < dag_table_num_partitions(l); p++)
        for (int c = 0; c < COLS; c++) CHECK(dag_table_values(j, p, c).id == dag_table_values(l, p, c).id);   /* the left's chunks */
    dag_table_free(l);   /* the result keeps them */
    rows_text want = { 0 }, got = table_rows(j);
    int rest[4] = { 1, 2, 3, 4 };
    for (int64_t i = 0; i < a.rows; i++) {
        char buf[1024], *x = host_row(&a, ALL, COLS, i), *y = i < b.rows ? host_row(&b, rest, 4, i) : strdup("-|-|-|-|");
        snprintf(buf, sizeof buf, "%s%s", x, y);
        free(x), free(y);
        add_row(&want, strdup(buf));
    }
    CHECK(same_rows(&got, &want, true));   /* in the left's order, too */
    free_rows(&got), free_rows(&want);
    dag_table_free(j), dag_table_free(r);
    free_table(&a), free_table(&b);
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
    dag_table_aggregate sum = { .op = DAG_TABLE_SUM, .column = "w" };
    dag_table_value v;
    CHECK_EQ_INT(dag_table_reduce(t, &sum, &v), DAG_OK);   /* after every add_ten */
    int64_t want = 0;
    for (int64_t i = 0; i < h.rows; i++) want += present(&h, 4, i) ? h.w[i] + 10 : 0;
    CHECK_EQ_INT(v.i, want);
    /* inside the program's DAG_DATADEPS block: an operation sees the tasks spawned before it, and the
       block stays open for the tasks after it (which the block's end waits for) */
    dag_table_value in_block[2];
    LAST_ERROR[0] = 0;
    DAG_DATADEPS {
        for (int round = 0; round < 2; round++) {
            for (int64_t p = 0; p < dag_table_num_partitions(t); p++)
                dag_spawn(add_ten, InOut(dag_table_values(t, p, 4)), Val(dag_table_partition_rows(t, p)));
            CHECK_EQ_INT(dag_table_reduce(t, &sum, &in_block[round]), DAG_OK);
        }
        for (int64_t p = 0; p < dag_table_num_partitions(t); p++)
            dag_spawn(add_ten, InOut(dag_table_values(t, p, 4)), Val(dag_table_partition_rows(t, p)));
    }
    CHECK_EQ_INT(dag_last_region_result(), DAG_OK);
    CHECK(LAST_ERROR[0] == 0);
    int64_t present_rows = 0;
    for (int64_t i = 0; i < h.rows; i++) present_rows += present(&h, 4, i);
    CHECK_EQ_INT(in_block[0].i, want + 10 * present_rows);
    CHECK_EQ_INT(in_block[1].i, want + 20 * present_rows);
    CHECK_EQ_INT(dag_table_reduce(t, &sum, &v), DAG_OK);
    CHECK_EQ_INT(v.i, want + 30 * present_rows);
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
    /* views: one on tile boundaries, and one whose corner is inside a tile (no tiles of its own: it crashed) */
    const int64_t corner[2][4] = { { 10, 25, 2, 1 }, { 3, 31, 1, 2 } };
    for (int v = 0; v < 2; v++) {
        const int64_t r0 = corner[v][0], nr = corner[v][1], c0 = corner[v][2], nc = corner[v][3];
        dag_array *view = dag_array_view(a, r0, nr, c0, nc);
        at = dag_table_from_array(view, DAG_F64, NULL);
        CHECK(at && dag_table_rows(at) == nr && dag_table_num_columns(at) == nc);
        cols = NULL;
        bad = 0;
        if (at && dag_table_collect(at, &cols) == DAG_OK && cols)
            for (int64_t c = 0; c < nc; c++)
                for (int64_t i = 0; i < nr; i++) bad += ((double *)cols[c].values)[i] != m[r0 + i + (c0 + c) * R];
        else bad = 1;
        CHECK_EQ_INT(bad, 0);
        if (cols) dag_table_columns_free(cols, (int)nc);
        dag_table_free(at);
        dag_array_free(view);
    }
    dag_array_free(a);
    AGREE();
}
static int64_t length_given(const dag_table_view *in, int64_t row, char *buf, int64_t size, void *user) {
    (void)in, (void)row, (void)buf, (void)size;
    return *(const int64_t *)user;
}
static void two_columns(const dag_table_view *in, dag_table_column *out, int num_out, void *user) {
    (void)in, (void)out, (void)num_out, (void)user;
}
DAG_KERNEL(halve_f64, ((DAG_GLOBAL const double *, x), (DAG_GLOBAL double *, y)),
    y[DAG_INDEX()] = x[DAG_INDEX()] * 0.5;
)
TEST(bad_arguments_are_refused_by_name) {
    host_table h;
    make_table(&h, 10, 5);
    dag_table *t = dag_table_from_columns(h.cols, COLS, h.rows, 4);
    const char *nope[1] = { "nope" };
    LAST_ERROR[0] = 0;
    CHECK(dag_table_select(t, nope, 1) == NULL && (dag_rank() || strstr(LAST_ERROR, "no column 'nope'")));
    dag_table_aggregate bad = { .op = DAG_TABLE_SUM, .column = "k2" };
    CHECK(dag_table_groupby(t, (const char *[]){ "k1" }, 1, &bad, 1) == NULL && (dag_rank() || strstr(LAST_ERROR, "a string column")));
    CHECK(dag_table_join(t, t, (const char *[]){ "k1" }, (const char *[]){ "k2" }, 1, DAG_TABLE_INNER) == NULL &&
          (dag_rank() || strstr(LAST_ERROR, "cannot be equal")));
    CHECK(dag_table_read_csv("/nonexistent/x.csv", NULL) == NULL && (dag_rank() || strstr(LAST_ERROR, "could not open")));
    CHECK(dag_table_values(t, 99, 0).id == 0 && dag_table_repartition(t, 0) == NULL);
    /* a kernel of doubles on a column of int64: refused (it read their bits as doubles) */
    LAST_ERROR[0] = 0;
    CHECK(dag_table_map_kernel(t, halve_f64, "w", "y", DAG_TABLE_F64) == NULL);
    CHECK_EQ_INT(dag_last_region_result(), DAG_ERR_ARG_TYPE);   /* (the spawn's words are logged before the region's) */
    /* a string function's length past its room's range, or under -1; two new columns of one name; a negative
       chunk size: refused by name, where the overflow was undefined and the others were silently taken */
    int64_t lengths[2] = { INT64_MAX, -5 };
    for (int k = 0; k < 2; k++) {
        LAST_ERROR[0] = 0;
        CHECK(dag_table_map_string(t, length_given, &lengths[k], "s") == NULL);
    }
    dag_table_new_column twice[2] = { { "n", DAG_TABLE_F64 }, { "n", DAG_TABLE_F64 } };
    LAST_ERROR[0] = 0;
    CHECK(dag_table_map(t, two_columns, NULL, twice, 2) == NULL && (dag_rank() || strstr(LAST_ERROR, "named twice")));
    CHECK(dag_data_unregister(dag_table_values(t, 0, 0)) == DAG_ERR_INVALID_ARGUMENT);   /* the table's own */
    CHECK(dag_data_discard(dag_table_validity(t, 0, 1)) == DAG_ERR_INVALID_ARGUMENT);
    CHECK(dag_table_rows(t) == 10);
    dag_table_column *left = (dag_table_column *)&lengths;   /* a failed collect leaves NULL, not what was there */
    CHECK(dag_table_collect(NULL, &left) == DAG_ERR_INVALID_ARGUMENT && left == NULL);
    dag_table_csv_options negative = { 0, 0, NULL, 0, -5 };
    LAST_ERROR[0] = 0;
    CHECK(dag_table_read_csv("/nonexistent/x.csv", &negative) == NULL && (dag_rank() || strstr(LAST_ERROR, "chunk_bytes")));
    dag_table_free(t);
    free_table(&h);
    AGREE();
}

/* A groupby and a sort of thousands of one-row partitions (partition_rows 1, or a CSV in tiny chunks): a
   shuffle held a piece per input and output partition, so 4,200 of them took 2.9 GB and then failed on
   the limit of registered spans; the buckets are now bounded (dag__table_shuffle_buckets). */
TEST(groupby_and_sort_of_thousands_of_one_row_partitions_finish_with_the_right_answer) {
    int64_t n = test_scaled(4200, 300);   /* past 4,096: the old shuffle failed there */
    int64_t *k = malloc(sizeof(int64_t) * (size_t)n), *v = malloc(sizeof(int64_t) * (size_t)n);
    for (int64_t i = 0; i < n; i++) k[i] = i % 10, v[i] = (i * 7919) % n;
    dag_table_column c[2] = { { "k", DAG_TABLE_I64, k, NULL, NULL }, { "v", DAG_TABLE_I64, v, NULL, NULL } };
    dag_table *t = dag_table_from_columns(c, 2, n, 1);
    CHECK_EQ_INT(dag_table_num_partitions(t), n);
    dag_table_aggregate sum = { .op = DAG_TABLE_SUM, .column = "v" };
    dag_table *g = dag_table_groupby(t, (const char *[]){ "k" }, 1, &sum, 1);
    dag_table *sorted = dag_table_sort(t, "v", 0);
    CHECK(g != NULL && sorted != NULL);
    dag_table_column *gc = NULL, *sc = NULL;
    if (g && dag_table_collect(g, &gc) == DAG_OK) {
        int64_t want[10] = { 0 }, total = 0;
        for (int64_t i = 0; i < n; i++) want[k[i]] += v[i];
        CHECK_EQ_INT(dag_table_rows(g), 10);
        for (int64_t r = 0; r < dag_table_rows(g); r++) {
            int64_t key = ((int64_t *)gc[0].values)[r];
            total += key >= 0 && key < 10 && ((int64_t *)gc[1].values)[r] == want[key];
        }
        CHECK_EQ_INT(total, 10);
        dag_table_columns_free(gc, 2);
    }
    if (sorted && dag_table_collect(sorted, &sc) == DAG_OK) {
        int64_t in_order = 0;
        for (int64_t r = 0; r + 1 < n; r++) in_order += ((int64_t *)sc[1].values)[r] <= ((int64_t *)sc[1].values)[r + 1];
        CHECK_EQ_INT(dag_table_rows(sorted), n);
        CHECK_EQ_INT(in_order, n - 1);
        dag_table_columns_free(sc, 2);
    }
    dag_table_free(g);
    dag_table_free(sorted);
    dag_table_free(t);
    free(k);
    free(v);
    AGREE();
}

/* What a demanding user's files and numbers meet: a quote inside an unquoted field is a bad row (every
   chunk size would otherwise see other records), a UTF-8 byte order mark and a repeated header name, int64's
   extremes through a CSV, a chunk size past the file, integer sums past int64, LARGEST of a huge n, a join
   whose right names clash twice, NULL and malformed input refused by name; and selects of one table from
   several task bodies at once. */
DAG_TASK(int, selects_and_frees, (dag_table *, t)) {
    const char *names[1] = { "v" };
    for (int i = 0; i < 200; i++) {
        dag_table *u = dag_table_select(t, names, 1);
        if (!u) return 1;
        dag_table_free(u);
    }
    return 0;
}
TEST(csv_and_aggregate_edges_a_demanding_user_meets) {
    const char *path = tmp_csv("edges");
    write_text(path, "a,h\n1,5'10\"\n2,x\n");
    LAST_ERROR[0] = 0;
    CHECK(dag_table_read_csv(path, NULL) == NULL);
    CHECK(dag_num_ranks() > 1 || (strstr(LAST_ERROR, "line 2") && strstr(LAST_ERROR, "quote inside an unquoted field")));
    write_text(path, "\xEF\xBB\xBFid,a,a\n1,2,3\n");
    dag_table *t = dag_table_read_csv(path, NULL);
    CHECK(t && dag_table_column_index(t, "id") == 0 && !strcmp(dag_table_column_name(t, 2), "a_2"));
    dag_table_free(t);
    write_text(path, "w\n-9223372036854775808\n9223372036854775807\n");
    dag_table_csv_options big = { 0, 0, NULL, 0, INT64_MAX };
    t = dag_table_read_csv(path, &big);
    CHECK(t && dag_table_column_type(t, 0) == DAG_TABLE_I64 && dag_table_rows(t) == 2 && dag_table_num_partitions(t) == 1);
    dag_table_value lo, hi;
    dag_table_aggregate mn = { .op = DAG_TABLE_MIN, .column = "w" }, mx = { .op = DAG_TABLE_MAX, .column = "w" };
    CHECK(t && dag_table_reduce(t, &mn, &lo) == DAG_OK && lo.i == INT64_MIN);
    CHECK(t && dag_table_reduce(t, &mx, &hi) == DAG_OK && hi.i == INT64_MAX);
    dag_table_free(t);
    int64_t ints[2] = { INT64_MAX, 1 }, keys[2] = { 1, 1 };
    dag_table_column cols[2] = { { "k", DAG_TABLE_I64, keys, NULL, NULL }, { "v", DAG_TABLE_I64, ints, NULL, NULL } };
    t = dag_table_from_columns(cols, 2, 2, INT64_MAX);
    dag_table_value mean, sum;
    dag_table_aggregate am = { .op = DAG_TABLE_MEAN, .column = "v" }, as = { .op = DAG_TABLE_SUM, .column = "v" };
    CHECK(t && dag_table_reduce(t, &am, &mean) == DAG_OK && mean.present && mean.d == 4611686018427387904.0);
    LAST_ERROR[0] = 0;
    CHECK(t && dag_table_reduce(t, &as, &sum) == DAG_OK && !sum.present);
    CHECK(strstr(LAST_ERROR, "past int64's range") != NULL);
    const char *k[1] = { "k" };
    dag_table_aggregate huge = { .op = DAG_TABLE_LARGEST, .column = "v", .n = (int64_t)1 << 61 };
    dag_table *g = t ? dag_table_groupby(t, k, 1, &huge, 1) : NULL;
    dag_table_column *got = NULL;
    CHECK(g && dag_table_rows(g) == 1 && dag_table_collect(g, &got) == DAG_OK);
    CHECK(got && !(got[1].valid[0] & 1));   /* fewer rows than n: missing */
    dag_table_columns_free(got, g ? 2 : 0);
    dag_table_free(g);
#ifndef DAG_BACKEND_MPI
    dag_task sel[4];
    for (int i = 0; i < 4; i++) sel[i] = dag_spawn(selects_and_frees, Val(t));
    for (int i = 0; i < 4; i++) {
        int bad = 1;
        CHECK(dag_fetch(sel[i], &bad) == DAG_OK && bad == 0);
    }
#endif
    dag_table_column l3[3] = { cols[0], cols[1], { "v_right", DAG_TABLE_I64, ints, NULL, NULL } };
    dag_table *l = dag_table_from_columns(l3, 3, 2, 0);   /* left: k, v, v_right; right: k, v */
    dag_table *r = dag_table_from_columns(cols, 2, 2, 0);
    dag_table *j = l && r ? dag_table_join(l, r, k, k, 1, DAG_TABLE_INNER) : NULL;
    CHECK(j && dag_table_num_columns(j) == 4 && !strcmp(dag_table_column_name(j, 2), "v_right") &&
          !strcmp(dag_table_column_name(j, 3), "v_right_2"));
    dag_table_free(j), dag_table_free(l), dag_table_free(r);
    LAST_ERROR[0] = 0;
    CHECK(t && dag_table_where_str(t, "k", DAG_TABLE_EQ, NULL) == NULL);
    CHECK(strstr(LAST_ERROR, "dag_table_where_str") != NULL);
    int64_t off[3] = { 0, 5, 2 };
    char chars[8] = "abcdefg";
    dag_table_column bad = { "s", DAG_TABLE_STR, off, chars, NULL };
    LAST_ERROR[0] = 0;
    CHECK(dag_table_from_columns(&bad, 1, 2, 0) == NULL);
    CHECK(strstr(LAST_ERROR, "offsets") != NULL);
    dag_table_free(t);
    AGREE();
}

/* What an outside review found: a negative partition size for wrapped columns, a one-column CSV
   with a missing value, whole doubles and -0.0 through a CSV, a column whose first 30000 values are
   integers (read as double, as its type is inferred from the first MiB), an array taken with
   another element type, wrapped columns of no rows with no string offsets. */
TEST(what_a_review_found_is_refused_or_reads_back_whole) {
    int64_t v[4] = { 1, 2, 3, 4 };
    dag_table_column c = { "x", DAG_TABLE_I64, v, NULL, NULL };
    LAST_ERROR[0] = 0;
    CHECK(dag_table_wrap_columns(&c, 1, 4, -3) == NULL && (dag_rank() || strstr(LAST_ERROR, "negative rows per partition")));
    /* one column, its middle value missing: the line is "" rather than blank */
    uint8_t valid = 0x5;
    dag_table_column m = { "x", DAG_TABLE_I64, v, NULL, &valid };
    dag_table *t = dag_table_from_columns(&m, 1, 3, 0);
    const char *path = tmp_csv("review");
    CHECK_EQ_INT(dag_table_write_csv(t, path), DAG_OK);
    dag_table *back = dag_table_read_csv(path, NULL);
    CHECK(back && dag_table_rows(back) == 3);
    dag_table_column *cols = NULL;
    if (back && dag_table_collect(back, &cols) == DAG_OK && cols) {
        CHECK(cols[0].valid && (cols[0].valid[0] & 7) == 5);
        CHECK(((int64_t *)cols[0].values)[2] == 3);
        dag_table_columns_free(cols, 1);
    }
    dag_table_free(t), dag_table_free(back);
    /* whole doubles and -0.0 stay doubles */
    double price[3] = { 10, -0.0, 35 };
    dag_table_column d = { "price", DAG_TABLE_F64, price, NULL, NULL };
    t = dag_table_from_columns(&d, 1, 3, 0);
    CHECK_EQ_INT(dag_table_write_csv(t, path), DAG_OK);
    back = dag_table_read_csv(path, NULL);
    CHECK(back && dag_table_column_type(back, 0) == DAG_TABLE_F64);
    cols = NULL;
    if (back && dag_table_collect(back, &cols) == DAG_OK && cols) {
        CHECK(((double *)cols[0].values)[0] == 10 && signbit(((double *)cols[0].values)[1]));
        dag_table_columns_free(cols, 1);
    }
    dag_table_free(t), dag_table_free(back);
    /* 30000 integers, then 1.5: a double column, every row read */
    if (dag_rank() == 0) {
        FILE *f = fopen(path, "wb");
        if (f) {
            fputs("x\n", f);
            for (int i = 0; i < 30000; i++) fprintf(f, "%d\n", i);
            fputs("1.5\n", f);
            fclose(f);
        }
    }
    AGREE();
    back = dag_table_read_csv(path, NULL);
    CHECK(back && dag_table_column_type(back, 0) == DAG_TABLE_F64 && dag_table_rows(back) == 30001);
    dag_table_free(back);
    /* an array of floats taken as doubles: refused, not read past its tiles */
    dag_array *a = dag_array_fill(DAG_F32, 10, 3, dag_blocks(5, 3), 1.0);
    LAST_ERROR[0] = 0;
    CHECK(dag_table_from_array(a, DAG_F64, NULL) == NULL && (dag_rank() || strstr(LAST_ERROR, "dag_array_type")));
    t = dag_table_from_array(a, DAG_F32, NULL);
    CHECK(t && dag_table_rows(t) == 10 && dag_table_column_type(t, 0) == DAG_TABLE_F32);
    dag_table_free(t);
    dag_array_free(a);
    /* the median of -1e308 and 1e308 is 0, not their overflowed difference */
    double big[2] = { -1e308, 1e308 };
    dag_table_column bc = { "b", DAG_TABLE_F64, big, NULL, NULL };
    t = dag_table_from_columns(&bc, 1, 2, 0);
    dag_table_aggregate med = { .op = DAG_TABLE_MEDIAN, .column = "b" };
    dag_table_value mv;
    CHECK_EQ_INT(dag_table_reduce(t, &med, &mv), DAG_OK);
    CHECK(mv.present && mv.d == 0);
    /* an infinity beside a finite value of its sign is the infinity (inf - finite is no help), beside the other
       infinity NaN, as Julia's median */
    double pairs[3][2] = { { -INFINITY, -1.5 }, { 2.5, INFINITY }, { -INFINITY, INFINITY } };
    for (int i = 0; i < 3; i++) {
        dag_table_column pc = { "b", DAG_TABLE_F64, pairs[i], NULL, NULL };
        dag_table *pt = dag_table_from_columns(&pc, 1, 2, 0);
        dag_table_value pv;
        CHECK_EQ_INT(dag_table_reduce(pt, &med, &pv), DAG_OK);
        CHECK(pv.present && (i == 2 ? isnan(pv.d) : pv.d == pairs[i][i]));
        dag_table_free(pt);
    }
    /* head with a negative count: all but the last, as pandas */
    dag_table *h2 = dag_table_head(t, -1);
    CHECK(h2 && dag_table_rows(h2) == 1);
    dag_table_free(h2), dag_table_free(t);
    /* a float column compares with the value as a float */
    float f[3] = { 0.1f, 0.2f, 0.3f };
    dag_table_column fc = { "f", DAG_TABLE_F32, f, NULL, NULL };
    t = dag_table_from_columns(&fc, 1, 3, 0);
    dag_table *eq = dag_table_where(t, "f", DAG_TABLE_EQ, 0.1), *le = dag_table_where(t, "f", DAG_TABLE_LE, 0.1);
    CHECK(eq && le && dag_table_rows(eq) == 1 && dag_table_rows(le) == 1);
    dag_table_free(eq), dag_table_free(le), dag_table_free(t);
    /* hex is text, and a 75-digit number is still a number */
    if (dag_rank() == 0) {
        FILE *f2 = fopen(path, "wb");
        if (f2) {
            fputs("h,p\n0x1A,3.14159265358979323846264338327950288419716939937510582097494459230781640628\n", f2);
            fclose(f2);
        }
    }
    AGREE();
    back = dag_table_read_csv(path, NULL);
    CHECK(back && dag_table_column_type(back, 0) == DAG_TABLE_STR && dag_table_column_type(back, 1) == DAG_TABLE_F64);
    dag_table_free(back);
    /* no rows: no values needed, strings included */
    dag_table_column empty[2] = { { "x", DAG_TABLE_I64, NULL, NULL, NULL }, { "s", DAG_TABLE_STR, NULL, NULL, NULL } };
    t = dag_table_wrap_columns(empty, 2, 0, 0);
    CHECK(t && dag_table_rows(t) == 0);
    dag_table_free(t);
    AGREE();
}

#ifndef DAG_BACKEND_MPI
/* A table made before a dag_shutdown, sorted after the next dag_setup and freed: its chunks' spans went
   with the shutdown, and freeing it lets its memory go without a word (it said "unknown handle" per chunk). */
static int table_errors;
static void counting_logger(dag_log_level level, int item, const char *msg, void *user) {
    logger(level, item, msg, user);
    if (level == DAG_LOG_ERROR) table_errors++;
}
TEST(a_table_of_an_earlier_set_up_is_freed_without_a_word) {
    int threads = dag_num_threads();
    int64_t v[4] = { 4, 3, 2, 1 };
    dag_table_column c = { "x", DAG_TABLE_I64, v, NULL, NULL };
    dag_table *t = dag_table_from_columns(&c, 1, 4, 2);
    CHECK(t != NULL);
    dag_shutdown();
    dag_setup(&(dag_desc){ .num_threads = threads, .logger = { counting_logger, NULL } });
    table_errors = 0;
    dag_table *s = dag_table_sort(t, "x", 0);
    dag_table_column *cols = NULL;
    if (s && dag_table_collect(s, &cols) == DAG_OK && cols)
        CHECK(((int64_t *)cols[0].values)[0] == 1 && ((int64_t *)cols[0].values)[3] == 4);
    dag_table_columns_free(cols, s ? 1 : 0);
    dag_table_free(s);
    dag_table_free(t);
    CHECK_EQ_INT(table_errors, 0);
    dag_shutdown();
    dag_setup(&(dag_desc){ .num_threads = threads, .logger = { LOGGER, NULL } });
}
#endif

static void run_all(void) {
    RUN_TEST(host_columns_round_trip_through_a_table_with_their_missing_values);
    RUN_TEST(collect_to_one_rank_gives_that_rank_the_table_and_the_others_nothing);
    RUN_TEST(a_table_written_as_csv_reads_back_the_same_in_small_chunks_and_large);
    RUN_TEST(csv_types_are_inferred_empty_fields_are_missing_and_a_bad_row_names_its_line);
    RUN_TEST(a_csv_that_one_rank_cannot_read_alike_fails_on_every_rank);
    RUN_TEST(filter_where_head_select_map_and_repartition_equal_plain_loops);
    RUN_TEST(reduce_follows_duckdb_rules_for_missing_values_and_nan);
    RUN_TEST(groupby_on_two_keys_with_missing_keys_equals_a_plain_grouping);
    RUN_TEST(groupby_with_many_groups_in_one_partition_and_few_in_another_equals_a_plain_grouping);
    RUN_TEST(holistic_aggregates_per_group_equal_sorting_each_group);
    RUN_TEST(correlation_per_group_and_holistic_reductions_equal_two_passes_and_sorting);
    RUN_TEST(sort_is_stable_puts_missing_last_and_nan_above_infinity_both_ways_by_one_column_or_several);
    RUN_TEST(inner_and_left_joins_on_duplicate_and_missing_keys_equal_nested_loops);
    RUN_TEST(a_left_join_on_unique_keys_keeps_the_left_columns_as_they_are);
    RUN_TEST(a_task_on_a_chunk_orders_with_the_table_operations_and_an_array_becomes_a_table);
    RUN_TEST(bad_arguments_are_refused_by_name);
    RUN_TEST(csv_and_aggregate_edges_a_demanding_user_meets);
    RUN_TEST(groupby_and_sort_of_thousands_of_one_row_partitions_finish_with_the_right_answer);
    RUN_TEST(what_a_review_found_is_refused_or_reads_back_whole);
#ifndef DAG_BACKEND_MPI
    RUN(a_table_of_an_earlier_set_up_is_freed_without_a_word);
#endif
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
