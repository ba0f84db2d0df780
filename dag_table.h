/* dag_table.h: partitioned tables for dag.h (Dagger's DTable in C).

       #define DAG_IMPLEMENTATION       (in one file, as for dag.h)
       #include "dag_table.h"

       dag_table *t = dag_table_read_csv("sales.csv", NULL);            // parsed in parallel
       dag_table *big = dag_table_where(t, "amount", DAG_TABLE_GT, 100);
       const char *keys[] = { "region" };
       dag_table_aggregate aggs[] = { { .op = DAG_TABLE_SUM, .column = "amount", .as = "total" },
                                      { .op = DAG_TABLE_COUNT_ALL, .as = "n" } };
       dag_table *g = dag_table_groupby(big, keys, 1, aggs, 2);
       dag_table_write_csv(g, "totals.csv");
       dag_table_free(g), dag_table_free(big), dag_table_free(t);

   A table is a list of named, typed columns (int32, int64, float, double,
   and strings as offsets into a byte buffer), split into partitions of
   rows. Each column of each partition (a chunk) keeps its values, a
   validity bitmap (Arrow's: bit i % 8 of byte i / 8 set when value i is
   present) and, for strings, its bytes, each a registered dag_data handle
   (dag_table_values, dag_table_validity, dag_table_chars), so that tasks
   of the program take them as In/Out/InOut arguments.

   Every operation is a set of tasks, spawned in a DAG_DATADEPS region that
   it waits for, as dag_array.h's are; each returns a new table (NULL, and
   a logged error, on failure) or a dag_result. An operation first waits
   for the tasks spawned before it (dag_wait_all; inside the program's
   DAG_DATADEPS block, the same wait with the block left open), so a task
   that writes a column is done before an operation reads it. Tables are values: an
   operation never changes its input, and the tables it returns may share
   unchanged columns with it (select, drop, map), freed with the last.

   Values follow DuckDB's rules (docs/tables.md): an empty CSV field is
   missing; aggregates skip missing values and give missing for a group
   with none (count gives 0); count(*) counts rows; missing keys form one
   group, and never match in a join; sort is stable and puts missing last;
   NaN is a value, equal to itself, above +inf.

   Over MPI ranks (dag_backends/dag_mpi.h) a table's partitions are owned by
   ranks (round-robin; by key hash after groupby and join), each rank holds
   the chunks it owns, and every operation is the same call on every rank:
   the tasks run on the owners, and the pieces a shuffle moves go as the
   rank layer moves any span. read_csv has each rank parse its own byte
   ranges of the file.

   The implementation in file order, part by part under its layer (a layer
   uses its own parts and those of the layers above it; search for
   ">>name"):
     storage:           >>storage >>values >>builders >>gather >>pieces
     jobs:              >>jobs
     input and output:  >>constructors >>collect >>csv writing >>csv records
                        >>csv values >>csv reading
     operations:        >>operations >>head >>map >>filter
     shuffles:          >>shuffle >>repartition >>sort
     grouping:          >>keys >>hash table of groups >>aggregates
                        >>holistic aggregates >>reduce >>groupby
     joins:             >>join
*/
#if defined(__has_include)
#if !__has_include("dag_array.h")
#error "dag_table.h needs dag_array.h (and dag.h, dag_kernels.h, dag_blas.h, dag_array_kernels.h) beside it (README: Which files to copy)"
#endif
#endif
#if defined(__OPENCL_C_VERSION__) || defined(DAG_KERNEL_NAMES) || defined(__CUDACC__) || defined(__HIP__)
#include "dag_array.h"   /* a kernels file: tables add no kernels of their own */
#else                    /* C or C++ on the host */

#ifndef DAG_TABLE_H_INCLUDED
#define DAG_TABLE_H_INCLUDED

#include "dag_array.h"   /* dag.h, and dag_table_from_array */

#ifdef __cplusplus
extern "C" {
#endif

typedef enum dag_table_type { DAG_TABLE_I32 = 1, DAG_TABLE_I64, DAG_TABLE_F32, DAG_TABLE_F64, DAG_TABLE_STR } dag_table_type;

/* A column in host memory: what the constructors take and collect gives,
   and what a partition looks like to a user function (dag_table_view). */
typedef struct dag_table_column {
    const char *name;
    dag_table_type type;
    void *values;      /* rows values of the type; strings: rows + 1 int64_t offsets, the first 0 */
    char *chars;       /* strings: value i is chars[offsets[i]] up to chars[offsets[i + 1]] (no NUL) */
    uint8_t *valid;    /* bit i % 8 of byte i / 8 set: value i is present; NULL (input only): all present */
} dag_table_column;

/* One partition as a user function sees it, on the rank that owns it. */
typedef struct dag_table_view {
    int64_t rows;
    int num_columns;
    dag_table_column *columns;   /* every column of the partition; valid is never NULL */
    int64_t partition;           /* its number */
    int64_t first_row;           /* its first row's number in the table */
} dag_table_view;

typedef struct dag_table dag_table;

/* Constructors: NULL (and a logged error) on bad arguments or no memory.
   partition_rows: rows per partition (0: 1 << 20). Over MPI every rank
   passes the same columns (SPMD) and each owner copies its partitions. */
dag_table *dag_table_from_columns(const dag_table_column *columns, int num_columns, int64_t rows,
                                  int64_t partition_rows);
/* In place: the numbers and string bytes stay the caller's (they must
   outlive the table; tasks that write a chunk write them). partition_rows
   is rounded up to a multiple of 8 so that each partition's validity is
   whole bytes of the caller's bitmap; string offsets are copied (each
   partition's start from 0), and a NULL bitmap becomes one of the table's. */
dag_table *dag_table_wrap_columns(const dag_table_column *columns, int num_columns, int64_t rows,
                                  int64_t partition_rows);
/* The columns of an array (type: its element type, dag_array_type(a); another is refused)
   as columns of a table (names: one per column, NULL: "column1"...), a
   partition per row of tiles, on the rank its number picks. */
dag_table *dag_table_from_array(dag_array *a, dag_elem type, const char *const *names);

typedef struct dag_table_csv_options {
    char delimiter;                 /* 0: ',' */
    int no_header;                  /* 1: the first line is data; columns are named column1, column2... */
    const dag_table_type *types;    /* one per column; NULL: inferred from the first rows (int64, double or
                                       string, as DuckDB's sniffer) */
    int num_types;
    int64_t chunk_bytes;            /* bytes of the file per partition, one task each; 0: 8 MiB */
} dag_table_csv_options;
/* RFC 4180: quoted fields may hold the delimiter, quotes ("") and line
   ends; an empty field (quoted or not) is missing; "NA" is a string. A bad
   row fails with DAG_ERR_INVALID_ARGUMENT and a message naming its line.
   Each chunk of the file is a partition, parsed by a task on its owner
   (over MPI every rank reads its own chunks of the file: a shared file
   system). options may be NULL. */
dag_table *dag_table_read_csv(const char *path, const dag_table_csv_options *options);
/* A header, then the rows in order; missing values are empty fields (quoted in a table of one
   column, whose line would otherwise be blank),
   strings are quoted when they hold the delimiter, a quote or a line end
   (or are empty), doubles are written to read back exactly. Over MPI each
   owner writes its partitions at their offsets (a shared file system).
   _with takes read_csv's options: .delimiter, and .no_header (rows only);
   the others are ignored. */
dag_result dag_table_write_csv(dag_table *t, const char *path);
dag_result dag_table_write_csv_with(dag_table *t, const char *path, const dag_table_csv_options *options);
/* The whole table into columns allocated here (on every rank, over MPI):
   *columns gets num_columns of them (NULL on failure), each with values, valid, and chars
   for strings; free them with dag_table_columns_free. collect_to: on
   `rank` alone (the others get NULL, and nothing moves to them). */
dag_result dag_table_collect(dag_table *t, dag_table_column **columns);
dag_result dag_table_collect_to(dag_table *t, int rank, dag_table_column **columns);
void dag_table_columns_free(dag_table_column *columns, int num_columns);
void dag_table_free(dag_table *t);

int64_t dag_table_rows(const dag_table *t);
int dag_table_num_columns(const dag_table *t);
const char *dag_table_column_name(const dag_table *t, int column);
dag_table_type dag_table_column_type(const dag_table *t, int column);
int dag_table_column_index(const dag_table *t, const char *name);   /* -1 when there is none */
int64_t dag_table_num_partitions(const dag_table *t);
int64_t dag_table_partition_rows(const dag_table *t, int64_t partition);
int dag_table_partition_rank(const dag_table *t, int64_t partition);   /* its owner (0 without MPI) */
/* A chunk's registered spans, for tasks of the program: the values (rows
   elements, at least 1; strings: rows + 1 int64_t offsets), the validity
   bitmap ((rows + 7) / 8 bytes, at least 1) and a string column's bytes
   (at least 1). A zero handle (and a logged error) outside the table. */
dag_data dag_table_values(const dag_table *t, int64_t partition, int column);
dag_data dag_table_validity(const dag_table *t, int64_t partition, int column);
dag_data dag_table_chars(const dag_table *t, int64_t partition, int column);

/* Columns by name: a new table of those columns, in that order (select) or
   of every other one (drop). They share the input's chunks. */
dag_table *dag_table_select(dag_table *t, const char *const *names, int count);
dag_table *dag_table_drop(dag_table *t, const char *const *names, int count);
dag_table *dag_table_head(dag_table *t, int64_t rows);   /* the first rows (all of them if fewer; negative: all but the
                                                           last -rows, as pandas) */

/* map: fn(in, out, num_out, user) per partition on its owner; out[k] has
   values for in->rows numbers of type new_columns[k].type (not strings)
   and a validity bitmap with every bit set: clear a bit for a missing
   value. A new column replaces the input's of its name, or is appended. */
typedef struct dag_table_new_column { const char *name; dag_table_type type; } dag_table_new_column;
typedef void (*dag_table_map_fn)(const dag_table_view *in, dag_table_column *out, int num_out, void *user);
dag_table *dag_table_map(dag_table *t, dag_table_map_fn fn, void *user, const dag_table_new_column *new_columns,
                         int num_new);
/* map to a string column `name` (replacing one of that name, or appended):
   fn(in, row, buf, size, user) per row of each partition writes the row's
   string into buf (at most size bytes; buf has one more, for a NUL, so
   `return snprintf(buf, size + 1, ...)` fits) and returns its length, or
   -1 for a missing value; a length over size has it called again for that
   row with room for it. */
typedef int64_t (*dag_table_string_fn)(const dag_table_view *in, int64_t row, char *buf, int64_t size, void *user);
dag_table *dag_table_map_string(dag_table *t, dag_table_string_fn fn, void *user, const char *name);
/* map with a DAG_KERNEL of ((DAG_GLOBAL const T *, x), (DAG_GLOBAL U *, y)), launched over each
   partition's rows of column `in` into a new column `out` of type out_type (missing where the input
   is); on the scope in force, so a device may run it: dag_table_map_kernel(t, kernel, in, out, type). */
#define dag_table_map_kernel(t, kernel, in, out, out_type) \
    dag_table_map_kernel_desc((t), &kernel##__desc, (in), (out), (out_type))
dag_table *dag_table_map_kernel_desc(dag_table *t, const dag_task_desc *kernel, const char *in, const char *out,
                                     dag_table_type out_type);

/* filter: fn(in, keep, user) sets keep[i] = 1 for the rows to keep (keep
   starts all 0). Partitions shrink; repartition_rows > 0 then deals the
   rows into partitions of that many (dag_table_repartition). */
typedef void (*dag_table_filter_fn)(const dag_table_view *in, uint8_t *keep, void *user);
dag_table *dag_table_filter(dag_table *t, dag_table_filter_fn fn, void *user, int64_t repartition_rows);
/* The rows whose `column` compares with value as op says (a missing value
   never does; NaN equals NaN and is above every number). where_str
   compares a string column bytewise. */
typedef enum dag_table_cmp { DAG_TABLE_EQ = 1, DAG_TABLE_NE, DAG_TABLE_LT, DAG_TABLE_LE, DAG_TABLE_GT, DAG_TABLE_GE } dag_table_cmp;
dag_table *dag_table_where(dag_table *t, const char *column, dag_table_cmp op, double value);
dag_table *dag_table_where_str(dag_table *t, const char *column, dag_table_cmp op, const char *value);
/* The same rows, in order, in partitions of `rows` rows (the last ragged). */
dag_table *dag_table_repartition(dag_table *t, int64_t rows);

/* Aggregates, for reduce and groupby. Results: SUM of integers int64, of
   floats double; MIN and MAX the column's type (strings too, bytewise);
   COUNT (present values) and COUNT_ALL (rows; column NULL) int64; MEAN,
   VAR and SD (sample variance and deviation: n - 1), CORR (Pearson's, of
   column and column2 over the rows where both are present; NaN for one
   such row or a constant column, as DuckDB) and USER double. Missing when
   no value is present (VAR and SD: fewer than two).
   Holistic ones, which need all of a group's values at once: MEDIAN
   (double; the mean of the middle two for an even count), LARGEST and
   SMALLEST (the n-th largest or smallest present value, n = 1 by default,
   the column's type; missing when fewer are present). With one of them
   (or MIN or MAX of strings), groupby deals the rows themselves by key
   and computes per group after the shuffle, instead of merging partial
   states; reduce collects the column. NaN is the largest value: above
   +inf for MIN, MAX, MEDIAN, LARGEST and SMALLEST. */
typedef enum dag_table_agg {
    DAG_TABLE_SUM = 1, DAG_TABLE_MIN, DAG_TABLE_MAX, DAG_TABLE_COUNT, DAG_TABLE_COUNT_ALL, DAG_TABLE_MEAN,
    DAG_TABLE_VAR, DAG_TABLE_SD, DAG_TABLE_USER, DAG_TABLE_CORR, DAG_TABLE_MEDIAN, DAG_TABLE_LARGEST, DAG_TABLE_SMALLEST
} dag_table_agg;
#define DAG_TABLE_USER_STATE 48   /* bytes a user aggregate's state may have */
/* A user aggregate over a column's present values, as doubles: per
   partition and per group, init, then step for each value; parts merge
   (in any order: it must be associative); finish gives the result, or 0
   for missing. */
typedef struct dag_table_user_agg {
    size_t state_size;
    void (*init)(void *state);
    void (*step)(void *state, double value);
    void (*merge)(void *state, const void *other);
    int (*finish)(const void *state, double *out);
} dag_table_user_agg;
typedef struct dag_table_aggregate {
    dag_table_agg op;
    const char *column;              /* NULL for COUNT_ALL */
    const char *as;                  /* the result column's name; NULL: "sum_v1", "count_star"... */
    const dag_table_user_agg *user;  /* DAG_TABLE_USER */
    const char *column2;             /* DAG_TABLE_CORR: the second column */
    int64_t n;                       /* DAG_TABLE_LARGEST, DAG_TABLE_SMALLEST: which (1, the default: the largest) */
} dag_table_aggregate;
typedef struct dag_table_value {
    int present;             /* 0: missing */
    dag_table_type type;     /* DAG_TABLE_I64 (i) or DAG_TABLE_F64 (d); MIN and MAX of int32: I64, of float: F64 */
    int64_t i;
    double d;
} dag_table_value;
dag_result dag_table_reduce(dag_table *t, const dag_table_aggregate *aggregate, dag_table_value *out);
/* One row per distinct key (missing keys form one group): the keys, then
   each aggregate. Hash partitioned: the rows are pre-aggregated per
   partition, the partial groups dealt by key hash into as many result
   partitions as the input has (over MPI each on the rank its hash picks),
   and merged there. The result's row order is not defined. */
dag_table *dag_table_groupby(dag_table *t, const char *const *keys, int num_keys, const dag_table_aggregate *aggs,
                             int num_aggs);
/* Sorted by one column, stable, missing last in both directions, NaN
   above +inf; range partitioned by sampled splitters of the first column.
   sort_by: by columns[0], rows of equal values by columns[1], and so on,
   each descending where descending[k] is not 0 (descending NULL: all
   ascending), missing last in each. */
dag_table *dag_table_sort(dag_table *t, const char *column, int descending);
dag_table *dag_table_sort_by(dag_table *t, const char *const *columns, const int *descending, int num_columns);
/* Equi-join on key columns (integers of either width match, floats
   likewise, strings bytewise; a missing key never matches). The result:
   the left's columns, then the right's other than its keys (a name
   already taken gets "_right", or "_right_2" and on when that is taken
   too); a left join keeps each unmatched left row
   once, the right's columns missing. The right table is hash partitioned
   and indexed; the left probes in place where it can (one rank, or a
   right table small enough to send to every rank), else both are dealt by
   key. Row order not defined (a small right table: the left's, and a left
   partition whose rows all come out once keeps its columns, shared). */
typedef enum dag_table_join_kind { DAG_TABLE_INNER = 1, DAG_TABLE_LEFT } dag_table_join_kind;
dag_table *dag_table_join(dag_table *left, dag_table *right, const char *const *left_keys,
                          const char *const *right_keys, int num_keys, dag_table_join_kind kind);

#ifdef __cplusplus
}
#endif
#endif /* DAG_TABLE_H_INCLUDED */

#if defined(DAG_IMPLEMENTATION) && !defined(DAG_TABLE_IMPLEMENTATION_INCLUDED)
#define DAG_TABLE_IMPLEMENTATION_INCLUDED
#ifdef __cplusplus
#error "dag_table.h: its implementation is C11: define DAG_IMPLEMENTATION in a .c file (the rest of the program may be C++)"
#endif
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* >>storage. A chunk is one column of one partition; tables share chunks
   (select, drop and map take the input's), so each counts its tables:
   atomically, since operations on one table may come from several
   threads or task bodies at once. */
enum { DAG__TABLE_OWN_VALUES = 1, DAG__TABLE_OWN_CHARS = 2, DAG__TABLE_OWN_VALID = 4 };
typedef struct dag__table_chunk {
    _Atomic int refs;
    unsigned own;                /* which buffers are the table's to free (DAG__TABLE_OWN_*) */
    int64_t rows, nchars;        /* known on every rank */
    void *values;                /* NULL on the ranks that do not own the partition */
    char *chars;
    uint8_t *valid;
    dag_data values_h, chars_h, valid_h;
} dag__table_chunk;

struct dag_table {
    int ncols;
    char **names;
    dag_table_type *types;
    int64_t nparts, rows;
    int64_t *part_rows, *first_row;   /* every partition's, on every rank */
    int *owner;                       /* the rank that holds each partition */
    dag__table_chunk **chunk;         /* partition p, column c: chunk[p * ncols + c] */
};

/* Internal column types beside the public ones: fixed-width raw bytes
   (groupby's partial states travel as such a column of width - RAW bytes). */
enum { DAG__TABLE_RAW = 256 };
static int64_t dag__table_width(int type) {
    return type == DAG_TABLE_I32 || type == DAG_TABLE_F32 ? 4 : type >= DAG__TABLE_RAW ? type - DAG__TABLE_RAW : 8;
}
static const char *dag__table_type_name(int type) {
    static const char *names[] = { "?", "int32", "int64", "float", "double", "string" };
    return type >= DAG_TABLE_I32 && type <= DAG_TABLE_STR ? names[type] : "raw";
}
static bool dag__table_ranks(void) { return dag_num_ranks() > 1; }
static void *dag__table_alloc(size_t bytes) { return DAG_MALLOC(bytes ? bytes : 1); }
static void *dag__table_zalloc(size_t bytes) {
    void *p = dag__table_alloc(bytes);
    if (p) memset(p, 0, bytes ? bytes : 1);
    return p;
}
static char *dag__table_strdup(const char *s) {
    size_t n = strlen(s) + 1;
    char *d = (char *)dag__table_alloc(n);
    if (d) memcpy(d, s, n);
    return d;
}
/* base, else base with suffix, else base with suffix and _2, _3, ...: the first that none of names[0..n) is
   (a join's right columns, a CSV header's repeated names); NULL without memory */
static char *dag__table_fresh_name(char *const *names, int n, const char *base, const char *suffix) {
    size_t len = strlen(base) + strlen(suffix) + 24;
    char *s = (char *)dag__table_alloc(len);
    for (int k = 0; s; k++) {
        if (k == 0) snprintf(s, len, "%s", base);
        else if (k == 1 && *suffix) snprintf(s, len, "%s%s", base, suffix);
        else snprintf(s, len, "%s%s_%d", base, suffix, k + !*suffix);
        bool taken = false;
        for (int i = 0; i < n && !taken; i++) taken = names[i] && !strcmp(names[i], s);
        if (!taken) break;
    }
    return s;
}
static int64_t dag__table_valid_bytes(int64_t rows) { return (rows + 7) / 8; }
static bool dag__table_bit(const uint8_t *v, int64_t i) { return (v[i >> 3] >> (i & 7)) & 1; }
static void dag__table_set_bit(uint8_t *v, int64_t i, bool on) {
    if (on) v[i >> 3] = (uint8_t)(v[i >> 3] | (1u << (i & 7)));
    else v[i >> 3] = (uint8_t)(v[i >> 3] & ~(1u << (i & 7)));
}
/* a string's bytes and length, row i of a column view */
static const char *dag__table_str(const dag_table_column *c, int64_t i, int64_t *len) {
    const int64_t *off = (const int64_t *)c->values;
    *len = off[i + 1] - off[i];
    return c->chars + off[i];
}

static void dag__table_chunk_release(dag__table_chunk *k) {
    if (!k || atomic_fetch_sub_explicit(&k->refs, 1, memory_order_acq_rel) > 1) return;
    dag__data_let_go(k->values_h, false);
    dag__data_let_go(k->valid_h, false);
    dag__data_let_go(k->chars_h, false);
    if (k->own & DAG__TABLE_OWN_VALUES) DAG_FREE(k->values);
    if (k->own & DAG__TABLE_OWN_CHARS) DAG_FREE(k->chars);
    if (k->own & DAG__TABLE_OWN_VALID) DAG_FREE(k->valid);
    DAG_FREE(k);
}

void dag_table_free(dag_table *t) {
    if (!t) return;
    for (int64_t i = 0; t->chunk && i < t->nparts * t->ncols; i++) dag__table_chunk_release(t->chunk[i]);
    for (int c = 0; t->names && c < t->ncols; c++) DAG_FREE(t->names[c]);
    DAG_FREE(t->names), DAG_FREE(t->types), DAG_FREE(t->part_rows), DAG_FREE(t->first_row), DAG_FREE(t->owner);
    DAG_FREE(t->chunk);
    DAG_FREE(t);
}

/* A table's skeleton: its columns, and nparts partitions owned by the
   ranks in owner (NULL: round-robin) with no chunks yet. */
static dag_table *dag__table_new(int ncols, const char *const *names, const dag_table_type *types, int64_t nparts,
                                 const int *owner) {
    dag_table *t = (dag_table *)dag__table_zalloc(sizeof *t);
    if (!t) return NULL;
    t->ncols = ncols;
    t->nparts = nparts;
    t->names = (char **)dag__table_zalloc(sizeof(char *) * (size_t)ncols);
    t->types = (dag_table_type *)dag__table_zalloc(sizeof(dag_table_type) * (size_t)ncols);
    t->part_rows = (int64_t *)dag__table_zalloc(sizeof(int64_t) * (size_t)nparts);
    t->first_row = (int64_t *)dag__table_zalloc(sizeof(int64_t) * (size_t)nparts);
    t->owner = (int *)dag__table_zalloc(sizeof(int) * (size_t)nparts);
    t->chunk = (dag__table_chunk **)dag__table_zalloc(sizeof(dag__table_chunk *) * (size_t)(nparts * ncols));
    bool ok = t->names && t->types && t->part_rows && t->first_row && t->owner && t->chunk;
    for (int c = 0; ok && c < ncols; c++) {
        t->types[c] = types[c];
        ok = (t->names[c] = dag__table_strdup(names[c])) != NULL;
    }
    for (int64_t p = 0; ok && p < nparts; p++) t->owner[p] = owner ? owner[p] : (int)(p % dag_num_ranks());
    if (!ok) {
        dag_log(DAG_LOG_ERROR, DAG_ERR_OUT_OF_MEMORY, "dag_table: no memory for a table of %d columns in %lld partitions",
                ncols, (long long)nparts);
        dag_table_free(t);
        return NULL;
    }
    return t;
}
static void dag__table_set_rows(dag_table *t, int64_t p, int64_t rows) {
    t->part_rows[p] = rows;
    t->rows = 0;
    for (int64_t q = 0; q < t->nparts; q++) t->first_row[q] = t->rows, t->rows += t->part_rows[q];
}
/* A skeleton with t's columns: nparts partitions owned as owner says (NULL:
   round-robin, partition q on rank q mod ranks, as key hashes deal buckets). */
static dag_table *dag__table_like(const dag_table *t, int64_t nparts, const int *owner) {
    return dag__table_new(t->ncols, (const char *const *)t->names, t->types, nparts, owner);
}
/* Its column types, as a builder takes them (the caller frees them). */
static int *dag__table_types_of(const dag_table *t) {
    int *types = (int *)dag__table_alloc(sizeof(int) * (size_t)t->ncols);
    for (int c = 0; types && c < t->ncols; c++) types[c] = t->types[c];
    return types;
}

/* Registers a chunk's buffers (on its owner; the other ranks pass NULL and
   dag.h keeps their copies), each at least one element: dag.h has no
   empty spans. */
static dag_data dag__table_register(int owner, void *p, int64_t count, size_t elem) {
    size_t n = count > 0 ? (size_t)count : 1;
    if (dag__table_ranks()) return dag_data_register_on(owner, owner == dag_rank() ? p : NULL, n, elem);
    return dag_data_register(p, n, elem);
}
/* A chunk of partition p, column c from buffers its owner has (others: NULL),
   registered; own says which buffers it frees. */
static bool dag__table_adopt_chunk(dag_table *t, int64_t p, int c, int64_t rows, int64_t nchars, void *values,
                                   char *chars, uint8_t *valid, unsigned own) {
    dag__table_chunk *k = (dag__table_chunk *)dag__table_zalloc(sizeof *k);
    if (!k) return false;
    int owner = t->owner[p];
    bool str = t->types[c] == DAG_TABLE_STR;
    if (owner == dag_rank()) {   /* an empty buffer is one element here: registered spans are never empty */
        if (!values && (values = dag__table_zalloc(8))) own |= DAG__TABLE_OWN_VALUES;
        if (str && !chars && (chars = (char *)dag__table_zalloc(8))) own |= DAG__TABLE_OWN_CHARS;
        if (!valid && (valid = (uint8_t *)dag__table_zalloc(8))) own |= DAG__TABLE_OWN_VALID;
    }
    atomic_init(&k->refs, 1);
    k->own = own;
    k->rows = rows;
    k->nchars = nchars;
    k->values = values, k->chars = chars, k->valid = valid;
    /* the table's own: the program may not unregister them (dag__data_owned) */
    k->values_h = dag__data_owned(dag__table_register(owner, values, str ? rows + 1 : rows, (size_t)dag__table_width(t->types[c])));
    k->valid_h = dag__data_owned(dag__table_register(owner, valid, dag__table_valid_bytes(rows), 1));
    if (str) k->chars_h = dag__data_owned(dag__table_register(owner, chars, nchars, 1));
    t->chunk[p * t->ncols + c] = k;
    if (!k->values_h.id || !k->valid_h.id || (str && !k->chars_h.id)) {
        dag_log(DAG_LOG_ERROR, DAG_ERR_OUT_OF_MEMORY, "dag_table: partition %lld, column '%s' could not be registered "
                "(the error before this says why)", (long long)p, t->names[c]);
        return false;
    }
    return true;
}
static void dag__table_share_chunk(dag_table *t, int64_t p, int c, dag__table_chunk *k) {
    atomic_fetch_add_explicit(&k->refs, 1, memory_order_relaxed);
    t->chunk[p * t->ncols + c] = k;
}

/* Partition p as columns, on its owner (buffers NULL elsewhere). */
static void dag__table_view_of(const dag_table *t, int64_t p, dag_table_view *v, dag_table_column *cols) {
    v->rows = t->part_rows[p];
    v->num_columns = t->ncols;
    v->columns = cols;
    v->partition = p;
    v->first_row = t->first_row[p];
    for (int c = 0; c < t->ncols; c++) {
        const dag__table_chunk *k = t->chunk[p * t->ncols + c];
        cols[c].name = t->names[c];
        cols[c].type = t->types[c];
        cols[c].values = k->values;
        cols[c].chars = k->chars;
        cols[c].valid = k->valid;
    }
}
/* The same into columns allocated here (the caller frees them); NULL: no memory. */
static dag_table_column *dag__table_view_new(const dag_table *t, int64_t p, dag_table_view *v) {
    dag_table_column *cols = (dag_table_column *)dag__table_alloc(sizeof(dag_table_column) * (size_t)t->ncols);
    if (cols) dag__table_view_of(t, p, v, cols);
    return cols;
}

int64_t dag_table_rows(const dag_table *t) { return t ? t->rows : 0; }
int dag_table_num_columns(const dag_table *t) { return t ? t->ncols : 0; }
int64_t dag_table_num_partitions(const dag_table *t) { return t ? t->nparts : 0; }
static bool dag__table_has_part(const dag_table *t, int64_t p) { return t && p >= 0 && p < t->nparts; }
const char *dag_table_column_name(const dag_table *t, int c) { return t && c >= 0 && c < t->ncols ? t->names[c] : NULL; }
dag_table_type dag_table_column_type(const dag_table *t, int c) {
    return t && c >= 0 && c < t->ncols ? t->types[c] : (dag_table_type)0;
}
int dag_table_column_index(const dag_table *t, const char *name) {
    for (int c = 0; t && name && c < t->ncols; c++)
        if (!strcmp(t->names[c], name)) return c;
    return -1;
}
int64_t dag_table_partition_rows(const dag_table *t, int64_t p) { return dag__table_has_part(t, p) ? t->part_rows[p] : 0; }
int dag_table_partition_rank(const dag_table *t, int64_t p) { return dag__table_has_part(t, p) ? t->owner[p] : -1; }
static const dag__table_chunk *dag__table_chunk_at(const dag_table *t, int64_t p, int c, const char *who) {
    if (dag__table_has_part(t, p) && c >= 0 && c < t->ncols) return t->chunk[p * t->ncols + c];
    dag_log(DAG_LOG_ERROR, DAG_ERR_INVALID_ARGUMENT, "%s(%lld, %d): outside the table's %lld partitions and %d columns",
            who, (long long)p, c, t ? (long long)t->nparts : 0LL, t ? t->ncols : 0);
    return NULL;
}
dag_data dag_table_values(const dag_table *t, int64_t p, int c) {
    const dag__table_chunk *k = dag__table_chunk_at(t, p, c, "dag_table_values");
    dag_data none = { 0 };
    return k ? k->values_h : none;
}
dag_data dag_table_validity(const dag_table *t, int64_t p, int c) {
    const dag__table_chunk *k = dag__table_chunk_at(t, p, c, "dag_table_validity");
    dag_data none = { 0 };
    return k ? k->valid_h : none;
}
dag_data dag_table_chars(const dag_table *t, int64_t p, int c) {
    const dag__table_chunk *k = dag__table_chunk_at(t, p, c, "dag_table_chars");
    dag_data none = { 0 };
    return k ? k->chars_h : none;
}

/* >>values: a value of a column read as a number, and the order of two
   present values of one column, or of a column and a value: NaN equals
   NaN and is above every number; strings bytewise. Filter, sort, keys and
   the aggregates all read values so. */
static int dag__table_cmp_real(double a, double b) {
    if (a != a || b != b) return (a != a) - (b != b);
    return (a > b) - (a < b);
}
static int dag__table_cmp_bytes(const char *a, int64_t na, const char *b, int64_t nb) {
    int c = memcmp(a, b, (size_t)(na < nb ? na : nb));
    return c ? (c > 0) - (c < 0) : (na > nb) - (na < nb);
}
static int64_t dag__table_get_int(const dag_table_column *c, int64_t i) {
    return c->type == DAG_TABLE_I32 ? ((const int32_t *)c->values)[i] : ((const int64_t *)c->values)[i];
}
static double dag__table_get_real(const dag_table_column *c, int64_t i) {
    switch (c->type) {
    case DAG_TABLE_I32: return ((const int32_t *)c->values)[i];
    case DAG_TABLE_I64: return (double)((const int64_t *)c->values)[i];
    case DAG_TABLE_F32: return ((const float *)c->values)[i];
    default: return ((const double *)c->values)[i];
    }
}
static bool dag__table_is_int(int type) { return type == DAG_TABLE_I32 || type == DAG_TABLE_I64; }
static int dag__table_cmp_rows(const dag_table_column *a, int64_t i, const dag_table_column *b, int64_t j) {
    if (a->type == DAG_TABLE_STR) {
        int64_t na, nb;
        const char *sa = dag__table_str(a, i, &na), *sb = dag__table_str(b, j, &nb);
        return dag__table_cmp_bytes(sa, na, sb, nb);
    }
    if (dag__table_is_int(a->type) && dag__table_is_int(b->type)) {
        int64_t x = dag__table_get_int(a, i), y = dag__table_get_int(b, j);
        return (x > y) - (x < y);
    }
    return dag__table_cmp_real(dag__table_get_real(a, i), dag__table_get_real(b, j));
}

/* >>builders: a partition growing in host memory (a task's output before
   it becomes chunks). A column of type 0 is not built. */
typedef struct dag__table_builder {
    int ncols;
    int *types;
    int64_t rows, cap;
    dag_table_column *cols;
    int64_t *nchars, *chars_cap;
    bool failed;                 /* no memory: the task fails */
    bool same_rows;              /* its rows are its input partition's, in order: the columns a build shares are not built */
} dag__table_builder;

static void dag__builder_free(dag__table_builder *b) {
    for (int c = 0; b->cols && c < b->ncols; c++) DAG_FREE(b->cols[c].values), DAG_FREE(b->cols[c].chars), DAG_FREE(b->cols[c].valid);
    DAG_FREE(b->types), DAG_FREE(b->cols), DAG_FREE(b->nchars), DAG_FREE(b->chars_cap);
    memset(b, 0, sizeof *b);
}
static bool dag__builder_init(dag__table_builder *b, int ncols, const int *types) {
    memset(b, 0, sizeof *b);
    b->ncols = ncols;
    b->types = (int *)dag__table_alloc(sizeof(int) * (size_t)ncols);
    b->cols = (dag_table_column *)dag__table_zalloc(sizeof(dag_table_column) * (size_t)ncols);
    b->nchars = (int64_t *)dag__table_zalloc(sizeof(int64_t) * (size_t)ncols);
    b->chars_cap = (int64_t *)dag__table_zalloc(sizeof(int64_t) * (size_t)ncols);
    if (!b->types || !b->cols || !b->nchars || !b->chars_cap) return !(b->failed = true);
    memcpy(b->types, types, sizeof(int) * (size_t)ncols);
    for (int c = 0; c < ncols; c++) b->cols[c].type = (dag_table_type)(types[c] < DAG__TABLE_RAW ? types[c] : 0);
    return true;
}
static void *dag__table_grow(void *p, size_t bytes, bool *failed) {
    void *q = DAG_REALLOC(p, bytes ? bytes : 1);
    if (!q) *failed = true;
    return q ? q : p;
}
/* room for `more` rows in every built column */
static bool dag__builder_reserve(dag__table_builder *b, int64_t more) {
    if (b->failed) return false;
    if (b->rows + more <= b->cap && b->cap) return true;
    int64_t cap = b->cap ? b->cap : 16;
    while (cap < b->rows + more) cap *= 2;
    for (int c = 0; c < b->ncols; c++) {
        if (!b->types[c]) continue;
        int64_t w = dag__table_width(b->types[c]), n = b->types[c] == DAG_TABLE_STR ? cap + 1 : cap;
        b->cols[c].values = dag__table_grow(b->cols[c].values, (size_t)(n * w), &b->failed);
        uint8_t *v = (uint8_t *)dag__table_grow(b->cols[c].valid, (size_t)dag__table_valid_bytes(cap), &b->failed);
        if (b->failed) return false;
        memset(v + dag__table_valid_bytes(b->cap), 0, (size_t)(dag__table_valid_bytes(cap) - dag__table_valid_bytes(b->cap)));
        b->cols[c].valid = v;
        if (b->types[c] == DAG_TABLE_STR && !b->cap) ((int64_t *)b->cols[c].values)[0] = 0;
    }
    b->cap = cap;
    return true;
}
static bool dag__builder_reserve_chars(dag__table_builder *b, int c, int64_t more) {
    if (b->nchars[c] + more <= b->chars_cap[c] && b->cols[c].chars) return !b->failed;
    int64_t cap = b->chars_cap[c] ? b->chars_cap[c] : 64;
    while (cap < b->nchars[c] + more) cap *= 2;
    b->cols[c].chars = (char *)dag__table_grow(b->cols[c].chars, (size_t)cap, &b->failed);
    if (!b->failed) b->chars_cap[c] = cap;
    return !b->failed;
}

/* The bytes rows idx[0..n) of a string column hold (idx NULL: rows 0..n; a row below 0: none). */
static int64_t dag__table_chars_of(const dag_table_column *src, int64_t from, const int64_t *idx, int64_t n) {
    const int64_t *off = (const int64_t *)src->values;
    if (n <= 0) return 0;
    if (!idx) return off[from + n] - off[from];
    int64_t s = 0;
    for (int64_t i = 0; i < n; i++)
        if (idx[i] >= 0) s += off[idx[i] + 1] - off[idx[i]];
    return s;
}
/* the validity of row i of a gather (idx, from as dag__table_gather takes them; a NULL bitmap: all present) */
static bool dag__table_gathered_bit(const uint8_t *src, int64_t from, const int64_t *idx, int64_t i) {
    int64_t r = idx ? idx[i] : from + i;
    return r >= 0 && (!src || dag__table_bit(src, r));
}
/* bits of a gather's n rows into dst from bit `at` on: whole bytes at a time where dst's bit is a byte's first */
static void dag__table_gather_bits(uint8_t *dst, int64_t at, const uint8_t *src, int64_t from, const int64_t *idx, int64_t n) {
    int64_t i = 0;
    if (!idx && src && at % 8 == 0 && from % 8 == 0) {   /* the same bytes */
        memcpy(dst + at / 8, src + from / 8, (size_t)(n / 8));
        i = n / 8 * 8;
    }
    for (; i < n && (at + i) % 8; i++) dag__table_set_bit(dst, at + i, dag__table_gathered_bit(src, from, idx, i));
    for (; i + 8 <= n; i += 8) {
        unsigned byte = 0;
        for (int k = 0; k < 8; k++) byte |= (unsigned)dag__table_gathered_bit(src, from, idx, i + k) << k;
        dst[(at + i) / 8] = (uint8_t)byte;
    }
    for (; i < n; i++) dag__table_set_bit(dst, at + i, dag__table_gathered_bit(src, from, idx, i));
}
/* >>gather: rows idx[0..n) of src (NULL: from..from + n; below 0: a
   missing value) into dst from row `at` on, dst having room (strings:
   *nchars bytes used, room for the rest). The one copy loop every
   operation uses. A source without a bitmap has every value. */
static const int64_t dag__table_zero = 0;
static void dag__table_gather(dag_table_column *dst, int type, int64_t at, int64_t *nchars, const dag_table_column *src,
                              int64_t from, const int64_t *idx, int64_t n) {
    if (n <= 0) {   /* (a string column's first offset is there already) */
        if (type == DAG_TABLE_STR) ((int64_t *)dst->values)[at] = *nchars;
        return;
    }
    if (type == DAG_TABLE_STR) {
        int64_t *doff = (int64_t *)dst->values;
        doff[at] = *nchars;
        for (int64_t i = 0; i < n; i++) {
            int64_t r = idx ? idx[i] : from + i, len = 0;
            if (r >= 0) {
                const char *s = dag__table_str(src, r, &len);
                memcpy(dst->chars + doff[at + i], s, (size_t)len);
            }
            doff[at + i + 1] = doff[at + i] + len;
        }
        *nchars = doff[at + n];
    } else {
        size_t w = (size_t)dag__table_width(type);
        char *d = (char *)dst->values + (size_t)at * w;
        const char *s = (const char *)src->values, *zero = (const char *)&dag__table_zero;
        if (!idx) memcpy(d, s + (size_t)from * w, (size_t)n * w);
        else if (w == 8) for (int64_t i = 0; i < n; i++) memcpy(d + i * 8, idx[i] >= 0 ? s + idx[i] * 8 : zero, 8);
        else if (w == 4) for (int64_t i = 0; i < n; i++) memcpy(d + i * 4, idx[i] >= 0 ? s + idx[i] * 4 : zero, 4);
        else for (int64_t i = 0; i < n; i++) {
            if (idx[i] >= 0) memcpy(d + (size_t)i * w, s + (size_t)idx[i] * w, w);
            else memset(d + (size_t)i * w, 0, w);
        }
    }
    dag__table_gather_bits(dst->valid, at, src->valid, from, idx, n);
}
/* column c of b gets rows idx[0..n) (NULL: from..from + n) of src after its `rows` (reserved) */
static bool dag__builder_put(dag__table_builder *b, int c, const dag_table_column *src, int64_t from, const int64_t *idx,
                             int64_t n) {
    if (b->types[c] == DAG_TABLE_STR && !dag__builder_reserve_chars(b, c, dag__table_chars_of(src, from, idx, n)))
        return false;
    dag__table_gather(&b->cols[c], b->types[c], b->rows, &b->nchars[c], src, from, idx, n);
    return true;
}
/* every built column of b gets rows idx[0..n) of the same column of v */
static bool dag__builder_append(dag__table_builder *b, const dag_table_view *v, const int64_t *idx, int64_t n) {
    if (!dag__builder_reserve(b, n)) return false;
    for (int c = 0; c < b->ncols; c++)
        if (b->types[c] && !dag__builder_put(b, c, &v->columns[c], 0, idx, n)) return false;
    b->rows += n;
    return true;
}
/* a partition's description for its meta: rows, each column's bytes of strings, same_rows */
static int64_t dag__builder_meta_words(int ncols) { return 2 + ncols; }
static void dag__builder_meta(const dag__table_builder *b, int64_t *meta) {
    meta[0] = b->rows;
    for (int c = 0; c < b->ncols; c++) meta[1 + c] = b->types[c] == DAG_TABLE_STR ? b->nchars[c] : 0;
    meta[1 + b->ncols] = b->same_rows;
}

/* >>pieces: rows of a partition packed in one buffer of int64 words, to
   move as one span (a shuffle's unit). Header: rows, columns, then each
   column's type and string bytes; then per column its validity, values
   and chars, each rounded up to 8 bytes. */
static int64_t dag__table_pad8(int64_t n) { return n > INT64_MAX - 7 ? INT64_MAX / 8 * 8 : (n + 7) / 8 * 8; }
static int64_t dag__piece_bytes(int ncols, const int *types, int64_t rows, const int64_t *nchars) {
    int64_t s = 8 * (2 + 2 * (int64_t)ncols);
    for (int c = 0; c < ncols; c++)
        s += dag__table_pad8(dag__table_valid_bytes(rows)) +
             dag__table_pad8((types[c] == DAG_TABLE_STR ? rows + 1 : rows) * dag__table_width(types[c])) +
             dag__table_pad8(nchars[c]);
    return s;
}
/* The columns of a piece, pointing into it (cols: room for its columns). */
static void dag__piece_view(const int64_t *piece, dag_table_view *v, dag_table_column *cols) {
    int64_t rows = piece[0];
    int ncols = (int)piece[1];
    char *at = (char *)(uintptr_t)(piece + 2 + 2 * ncols);
    memset(v, 0, sizeof *v);
    v->rows = rows;
    v->num_columns = ncols;
    v->columns = cols;
    for (int c = 0; c < ncols; c++) {
        int type = (int)piece[2 + 2 * c];
        memset(&cols[c], 0, sizeof cols[c]);
        cols[c].type = (dag_table_type)type;
        cols[c].valid = (uint8_t *)at;
        at += dag__table_pad8(dag__table_valid_bytes(rows));
        cols[c].values = at;
        at += dag__table_pad8((type == DAG_TABLE_STR ? rows + 1 : rows) * dag__table_width(type));
        cols[c].chars = at;
        at += dag__table_pad8(piece[3 + 2 * c]);
    }
}
/* A new piece of rows idx[0..n) of v (its columns' types in types); NULL without memory. */
static int64_t *dag__piece_make(const dag_table_view *v, const int *types, const int64_t *idx, int64_t n, int64_t *bytes) {
    int64_t *nchars = (int64_t *)dag__table_alloc(sizeof(int64_t) * (size_t)v->num_columns);
    dag_table_column *cols = (dag_table_column *)dag__table_alloc(sizeof(dag_table_column) * (size_t)v->num_columns);
    int64_t *piece = NULL;
    if (!nchars || !cols) goto done;
    for (int c = 0; c < v->num_columns; c++)
        nchars[c] = types[c] == DAG_TABLE_STR ? dag__table_chars_of(&v->columns[c], 0, idx, n) : 0;
    *bytes = dag__piece_bytes(v->num_columns, types, n, nchars);
    if (!(piece = (int64_t *)dag__table_zalloc((size_t)*bytes))) goto done;
    piece[0] = n;
    piece[1] = v->num_columns;
    for (int c = 0; c < v->num_columns; c++) piece[2 + 2 * c] = types[c], piece[3 + 2 * c] = nchars[c];
    dag_table_view out;
    dag__piece_view(piece, &out, cols);
    for (int c = 0; c < v->num_columns; c++) {
        int64_t used = 0;
        dag__table_gather(&cols[c], types[c], 0, &used, &v->columns[c], 0, idx, n);
    }
done:
    DAG_FREE(nchars), DAG_FREE(cols);
    return piece;
}

/* >>jobs: how every operation runs. A job is a set of units (an output
   partition, a partition's pieces, a partial result), each a task on its
   unit's rank that leaves its output in that rank's memory (the job's
   stash) and writes a few int64 words about it (its meta: rows, sizes) to
   a span owned there. The meta goes to every rank (a copy task each rank
   runs), so that every rank then knows every output's size and registers
   it alike: no rank needs to know a size before the task that makes it
   has run. A unit may first absorb pieces, one task each in a chain on
   its rank (ordered by a token span it writes), for the buckets of a
   shuffle; the pieces move there as any span does. */
typedef struct dag__table_job dag__table_job;
struct dag__table_job {
    const char *who;                   /* the operation, for the trace and messages */
    int64_t units, k;                  /* units, and meta words per unit */
    const int *owner;                  /* each unit's rank */
    void (*run)(dag__table_job *job, int64_t unit, int64_t *meta);
    /* a chain's units: absorb piece `from` (a span: a shuffle's piece, an array's tile) into `unit` before run */
    void (*absorb)(dag__table_job *job, int64_t unit, int64_t from, const void *piece);
    int64_t sources;                   /* pieces per bucket: one from each source unit */
    dag_data *pieces;                  /* sources x units: piece (from, unit) at from * units + unit */
    int64_t *meta;                     /* every unit's meta, on every rank, after dag__table_run */
    void *op;                          /* the operation's own state */
};

static void dag__table_job_fail_memory(dag__table_job *job, int64_t unit) {
    dag_fail(DAG_ERR_OUT_OF_MEMORY, "%s: no memory for unit %lld", job->who, (long long)unit);
}
DAG_TASK(void, dag__table_unit, (void *, job), (int64_t, unit), (int64_t *, meta)) {
    dag__table_job *j = (dag__table_job *)job;
    j->run(j, unit, meta);
}
DAG_TASK(void, dag__table_unit_after, (void *, job), (int64_t, unit), (const int64_t *, token), (int64_t *, meta)) {
    (void)token;
    dag__table_job *j = (dag__table_job *)job;
    j->run(j, unit, meta);
}
DAG_TASK(void, dag__table_absorb, (void *, job), (int64_t, unit), (int64_t, from), (const void *, piece),
         (int64_t *, token)) {
    dag__table_job *j = (dag__table_job *)job;
    j->absorb(j, unit, from, piece);
    ++*token;
}
DAG_TASK(void, dag__table_copy_words, (const int64_t *, from), (int64_t *, to), (int64_t, n)) {
    memcpy(to, from, sizeof(int64_t) * (size_t)n);
}

/* The options of a table task: the workers (of the rank its data picks). */
static dag_options dag__table_options(const char *who) {
    dag_options o;
    memset(&o, 0, sizeof o);
    o.name = who;
    o.scope.all_threads = 1;
    return o;
}

/* Runs every unit of job (after its pieces, if it has any) and gathers
   the meta into job->meta on every rank (the caller frees it). The first
   failure of a task, the same on every rank. */
static dag_result dag__table_run(dag__table_job *job) {
    int64_t n = job->units * job->k;
    bool ranks = dag__table_ranks();
    int64_t *own = (int64_t *)dag__table_zalloc(sizeof(int64_t) * (size_t)(n ? n : 1));
    int64_t *all = ranks ? (int64_t *)dag__table_zalloc(sizeof(int64_t) * (size_t)(n ? n : 1)) : own;
    int64_t *tokens = (int64_t *)dag__table_zalloc(sizeof(int64_t) * (size_t)(job->units ? job->units : 1));
    dag_data *h = (dag_data *)dag__table_zalloc(sizeof(dag_data) * (size_t)(2 * job->units + 1));
    if (!own || !all || !tokens || !h) {
        if (all != own) DAG_FREE(all);
        DAG_FREE(own), DAG_FREE(tokens), DAG_FREE(h);
        dag_log(DAG_LOG_ERROR, DAG_ERR_OUT_OF_MEMORY, "%s: no memory for %lld units", job->who, (long long)job->units);
        return DAG_ERR_OUT_OF_MEMORY;
    }
    dag_data *token = h + job->units;
    dag_options o = dag__table_options(job->who);
    DAG_DATADEPS {
        for (int64_t u = 0; u < job->units; u++) {
            h[u] = dag__table_register(job->owner[u], own + u * job->k, job->k, sizeof(int64_t));
            if (!job->pieces) {
                dag_spawn_with(&o, dag__table_unit, Val((void *)job), Val(u), Out(h[u]));
                continue;
            }
            token[u] = dag__table_register(job->owner[u], tokens + u, 1, sizeof(int64_t));
            for (int64_t f = 0; f < job->sources; f++)
                dag_spawn_with(&o, dag__table_absorb, Val((void *)job), Val(u), Val(f),
                               In(job->pieces[f * job->units + u]), InOut(token[u]));
            dag_spawn_with(&o, dag__table_unit_after, Val((void *)job), Val(u), In(token[u]),
                           Out(h[u]));
        }
        for (int64_t u = 0; ranks && u < job->units; u++)   /* runs on every rank: it writes each one's own memory */
            dag_spawn_with(&o, dag__table_copy_words, In(h[u]), Out(all + u * job->k, (size_t)job->k),
                           Val(job->k));
    }
    dag_result r = dag_last_region_result();
    for (int64_t u = 0; u < 2 * job->units; u++)
        if (h[u].id) dag_data_unregister(h[u]);
    if (all != own) DAG_FREE(own);
    DAG_FREE(tokens), DAG_FREE(h);
    job->meta = all;
    return r;
}
/* A job of units run by run (no pieces), set up and run: dag__table_run's result. */
static dag_result dag__table_job_of(dag__table_job *job, const char *who, int64_t units, int64_t k, const int *owner,
                                    void (*run)(dag__table_job *, int64_t, int64_t *), void *op) {
    memset(job, 0, sizeof *job);
    job->who = who, job->units = units, job->k = k, job->owner = owner, job->run = run, job->op = op;
    return dag__table_run(job);
}

/* After a job whose units built partitions of t into stash (its meta:
   dag__builder_meta), every rank makes the chunks not yet there: the
   owner's from the stash, the others' empty. A partition that kept its
   input's rows (same_rows) takes the chunks of in's columns same[c] (>= 0). */
static bool dag__table_adopt(dag_table *t, const int64_t *meta, dag__table_builder *stash, const dag_table *in, const int *same) {
    int64_t k = dag__builder_meta_words(t->ncols);
    for (int64_t p = 0; p < t->nparts; p++) dag__table_set_rows(t, p, meta[p * k]);
    for (int64_t p = 0; in && p < t->nparts; p++)
        for (int c = 0; meta[p * k + 1 + t->ncols] && c < t->ncols; c++)
            if (same[c] >= 0) dag__table_share_chunk(t, p, c, in->chunk[p * in->ncols + same[c]]);
    for (int64_t p = 0; p < t->nparts; p++)
        for (int c = 0; c < t->ncols; c++) {
            if (t->chunk[p * t->ncols + c]) continue;
            dag_table_column none = { 0 };
            dag_table_column *b = t->owner[p] == dag_rank() && stash[p].cols ? &stash[p].cols[c] : &none;
            bool ok = dag__table_adopt_chunk(t, p, c, t->part_rows[p], meta[p * k + 1 + c], b->values, b->chars, b->valid,
                                             DAG__TABLE_OWN_VALUES | DAG__TABLE_OWN_CHARS | DAG__TABLE_OWN_VALID);
            if (t->chunk[p * t->ncols + c]) b->values = NULL, b->chars = NULL, b->valid = NULL;   /* the chunk's now */
            if (!ok) return false;
        }
    return true;
}

/* A build: one unit per partition of a new table, each making its
   partition from the operation's inputs (make), then adopted. */
typedef struct dag__table_build {
    dag_table *out;
    dag__table_builder *stash;   /* one per partition, filled on its owner */
    bool (*make)(struct dag__table_build *b, int64_t p, dag__table_builder *into);
    const int *built;            /* the column types the units make (0: a chunk shared, not built) */
    void *op;
    const dag_table *in;         /* a unit that keeps in's rows (same_rows) shares in's columns same[c] (>= 0) */
    const int *same;
} dag__table_build;

static void dag__table_build_unit(dag__table_job *job, int64_t p, int64_t *meta) {
    dag__table_build *b = (dag__table_build *)job->op;
    dag__table_builder *into = &b->stash[p];
    if (!dag__builder_init(into, b->out->ncols, b->built) || !dag__builder_reserve(into, 1) || !b->make(b, p, into) ||
        into->failed) {
        if (into->failed) dag__table_job_fail_memory(job, p);   /* (make fails with its own words otherwise) */
        return;
    }
    dag__builder_meta(into, meta);
}
/* Runs b's units over b->out's partitions and adopts them: b->out, or NULL (freed) on failure. */
static dag_table *dag__table_build_run(dag__table_build *b, const char *who) {
    dag_table *t = b->out;
    b->stash = (dag__table_builder *)dag__table_zalloc(sizeof(dag__table_builder) * (size_t)(t->nparts + 1));
    if (!b->stash) {
        dag_table_free(t);
        return NULL;
    }
    dag__table_job job;
    dag_result r = dag__table_job_of(&job, who, t->nparts, dag__builder_meta_words(t->ncols), t->owner, dag__table_build_unit, b);
    bool ok = r == DAG_OK && dag__table_adopt(t, job.meta, b->stash, b->in, b->same);
    for (int64_t p = 0; p < t->nparts; p++) dag__builder_free(&b->stash[p]);
    DAG_FREE(b->stash), DAG_FREE(job.meta);
    if (!ok) {
        dag_table_free(t);
        return NULL;
    }
    return t;
}

/* >>constructors */
#define DAG__TABLE_DEFAULT_PARTITION_ROWS ((int64_t)1 << 20)
static bool dag__table_check_columns(const dag_table_column *cols, int ncols, int64_t rows, int64_t prows, const char *who) {
    const char *why = !cols || ncols <= 0 ? "no columns" : rows < 0 ? "a negative row count"
                    : prows < 0 ? "negative rows per partition" : NULL;
    for (int c = 0; !why && c < ncols; c++) {
        bool str = cols[c].type == DAG_TABLE_STR;
        if (!cols[c].name || cols[c].type < DAG_TABLE_I32 || cols[c].type > DAG_TABLE_STR) why = "a column without a name or a type";
        else if (dag__table_ranks() ? false : rows && (!cols[c].values || (str && !cols[c].chars))) why = "a column without its values";
        else if (str && cols[c].values && rows) {   /* its rows + 1 offsets into chars: from 0 up, never down */
            const int64_t *off = (const int64_t *)cols[c].values;
            for (int64_t r = 0; !why && r < rows; r++)
                if (off[r] < 0 || off[r + 1] < off[r]) why = "a string column whose offsets go below 0 or down";
        }
        for (int d = 0; !why && d < c; d++)
            if (!strcmp(cols[c].name, cols[d].name)) why = "two columns of one name";
    }
    if (why) dag_log(DAG_LOG_ERROR, DAG_ERR_INVALID_ARGUMENT, "%s: %s", who, why);
    return !why;
}
/* the names and types of host columns, as dag__table_new takes them */
static dag_table *dag__table_new_like(const dag_table_column *cols, int ncols, int64_t nparts) {
    const char **names = (const char **)dag__table_alloc(sizeof(char *) * (size_t)ncols);
    dag_table_type *types = (dag_table_type *)dag__table_alloc(sizeof(dag_table_type) * (size_t)ncols);
    dag_table *t = NULL;
    if (names && types) {
        for (int c = 0; c < ncols; c++) names[c] = cols[c].name, types[c] = cols[c].type;
        t = dag__table_new(ncols, names, types, nparts, NULL);
    }
    DAG_FREE(names), DAG_FREE(types);
    return t;
}
static int64_t dag__table_parts_for(int64_t rows, int64_t prows) { return rows ? rows / prows + (rows % prows != 0) : 1; }

static bool dag__table_copy_rows(dag__table_build *b, int64_t p, dag__table_builder *into) {
    const dag_table_column *host = (const dag_table_column *)b->op;
    int64_t n = b->out->part_rows[p];
    if (!host[0].values && b->out->ncols && n) {   /* over ranks: this rank passed no columns */
        dag_fail(DAG_ERR_INVALID_ARGUMENT, "dag_table_from_columns: no columns on rank %d", dag_rank());
        return false;
    }
    if (!dag__builder_reserve(into, n)) return false;
    for (int c = 0; c < b->out->ncols; c++)
        if (!dag__builder_put(into, c, &host[c], b->out->first_row[p], NULL, n)) return false;
    into->rows = n;
    return true;
}
dag_table *dag_table_from_columns(const dag_table_column *cols, int ncols, int64_t rows, int64_t prows) {
    dag__wait_spawned();
    if (!prows) prows = DAG__TABLE_DEFAULT_PARTITION_ROWS;
    if (!dag__table_check_columns(cols, ncols, rows, prows, "dag_table_from_columns")) return NULL;
    dag_table *t = dag__table_new_like(cols, ncols, dag__table_parts_for(rows, prows));
    if (!t) return NULL;
    for (int64_t p = 0; p < t->nparts; p++) dag__table_set_rows(t, p, rows - p * prows < prows ? rows - p * prows : prows);
    int *types = dag__table_types_of(t);
    dag__table_build b = { t, NULL, dag__table_copy_rows, types, (void *)(uintptr_t)cols, NULL, NULL };
    t = types ? dag__table_build_run(&b, "dag_table_from_columns") : (dag_table_free(t), NULL);
    DAG_FREE(types);
    return t;
}

/* A wrapped partition's own offsets (from 0) and bitmap where the caller gave none. */
static bool dag__table_wrap_part(dag_table *t, const dag_table_column *cols, int64_t p) {
    int64_t first = t->first_row[p], n = t->part_rows[p];
    bool mine = t->owner[p] == dag_rank();
    for (int c = 0; c < t->ncols; c++) {
        const dag_table_column *h = &cols[c];
        void *values = mine ? (char *)h->values + first * dag__table_width(h->type) : NULL;
        char *chars = NULL;
        uint8_t *valid = mine && h->valid ? h->valid + first / 8 : NULL;
        unsigned own = 0;
        int64_t nchars = 0;
        if (h->type == DAG_TABLE_STR && h->values) {   /* every rank knows the bytes: its own copy of the columns */
            const int64_t *off = (const int64_t *)h->values + first;
            nchars = off[n] - off[0];
            if (mine) {
                int64_t *rebased = (int64_t *)dag__table_alloc(sizeof(int64_t) * (size_t)(n + 1));
                if (!rebased) return false;
                for (int64_t i = 0; i <= n; i++) rebased[i] = off[i] - off[0];
                values = rebased, own |= DAG__TABLE_OWN_VALUES;
                chars = h->chars + off[0];
            }
        }
        if (mine && !h->valid) {
            if (!(valid = (uint8_t *)dag__table_alloc((size_t)dag__table_valid_bytes(n)))) return false;
            memset(valid, 0xff, (size_t)dag__table_valid_bytes(n));
            own |= DAG__TABLE_OWN_VALID;
        }
        if (!dag__table_adopt_chunk(t, p, c, n, nchars, values, chars, valid, own)) return false;
    }
    return true;
}
dag_table *dag_table_wrap_columns(const dag_table_column *cols, int ncols, int64_t rows, int64_t prows) {
    dag__wait_spawned();
    if (!prows) prows = DAG__TABLE_DEFAULT_PARTITION_ROWS;
    if (!dag__table_check_columns(cols, ncols, rows, prows, "dag_table_wrap_columns")) return NULL;
    prows = dag__table_pad8(prows);   /* (after the check: a negative count would round to 0) */
    for (int c = 0; c < ncols; c++)
        if (rows && (!cols[c].values || (cols[c].type == DAG_TABLE_STR && !cols[c].chars))) {
            dag_log(DAG_LOG_ERROR, DAG_ERR_INVALID_ARGUMENT, "dag_table_wrap_columns: column '%s' has no values", cols[c].name);
            return NULL;
        }
    dag_table *t = dag__table_new_like(cols, ncols, dag__table_parts_for(rows, prows));
    if (!t) return NULL;
    for (int64_t p = 0; p < t->nparts; p++) dag__table_set_rows(t, p, rows - p * prows < prows ? rows - p * prows : prows);
    for (int64_t p = 0; p < t->nparts; p++)
        if (!dag__table_wrap_part(t, cols, p)) {
            dag_log(DAG_LOG_ERROR, DAG_ERR_OUT_OF_MEMORY, "dag_table_wrap_columns: no memory for partition %lld", (long long)p);
            dag_table_free(t);
            return NULL;
        }
    return t;
}

/* from_array: partition i is tile row i; each tile (i, j) is absorbed into
   it by a task on its owner (the tile moves there), a chain per partition. */
typedef struct dag__table_from_array {
    dag_array *a;
    int64_t tile_cols;           /* columns per tile (the last ragged) */
    dag__table_builder *stash;
    const int *types;
} dag__table_from_array;
static void dag__table_take_tile(dag__table_job *job, int64_t i, int64_t j, const void *tile) {
    dag__table_from_array *fa = (dag__table_from_array *)job->op;
    dag__table_builder *b = &fa->stash[i];
    int64_t rows, cols, ld = dag_array_tile_ld(fa->a, i, j), w = dag__table_width(fa->types[0]);
    dag_array_tile_size(fa->a, i, j, &rows, &cols);
    if (j == 0 && (!dag__builder_init(b, b->ncols, fa->types) || !dag__builder_reserve(b, rows))) {
        dag__table_job_fail_memory(job, i);
        return;
    }
    if (b->failed) return;
    int64_t c0 = j * fa->tile_cols;
    for (int64_t c = 0; c < cols; c++) {
        memcpy(b->cols[c0 + c].values, (const char *)tile + (size_t)(c * ld * w), (size_t)(rows * w));
        memset(b->cols[c0 + c].valid, 0xff, (size_t)dag__table_valid_bytes(rows));
    }
    b->rows = rows;
}
static void dag__table_array_unit(dag__table_job *job, int64_t i, int64_t *meta) {
    dag__table_from_array *fa = (dag__table_from_array *)job->op;
    if (!fa->stash[i].cols) dag_fail(DAG_ERR_BAD_DATA, "%s: tile row %lld was never read", job->who, (long long)i);
    else if (!fa->stash[i].failed) dag__builder_meta(&fa->stash[i], meta);
}
dag_table *dag_table_from_array(dag_array *a, dag_elem type, const char *const *names) {
    dag__wait_spawned();
    if (!a || type < DAG_F64 || type > DAG_I64 || type != dag_array_type(a)) {
        dag_log(DAG_LOG_ERROR, DAG_ERR_INVALID_ARGUMENT, "dag_table_from_array: %s (type %d, the array's %d)",
                !a ? "no array" : type < DAG_F64 || type > DAG_I64 ? "a bad element type"
                                : "the type is not the array's element type (dag_array_type)",
                (int)type, a ? (int)dag_array_type(a) : 0);
        return NULL;
    }
    dag_array *given = a;   /* a view with no tiles of its own: read from a copy in tiles */
    if (!(a = dag__operand(given, dag__any_tiling, true))) return NULL;
    int64_t mt = dag_array_tile_rows(a), nt = dag_array_tile_cols(a), ncols = dag_array_cols(a);
    int64_t rows, tcols;
    static const dag_table_type of_elem[] = { (dag_table_type)0, DAG_TABLE_F64, DAG_TABLE_F32, DAG_TABLE_I32, DAG_TABLE_I64 };
    dag_table_column *cols = (dag_table_column *)dag__table_zalloc(sizeof(dag_table_column) * (size_t)ncols);
    char (*made)[32] = (char (*)[32])dag__table_zalloc(32 * (size_t)ncols);
    int *types = (int *)dag__table_alloc(sizeof(int) * (size_t)ncols);
    int *owner = (int *)dag__table_alloc(sizeof(int) * (size_t)mt);
    dag_data *tiles = (dag_data *)dag__table_alloc(sizeof(dag_data) * (size_t)(mt * nt));
    dag__table_from_array fa = { a, 0, NULL, types };
    dag_table *t = NULL;
    if (!cols || !made || !types || !owner || !tiles) goto done;
    for (int64_t c = 0; c < ncols; c++) {
        snprintf(made[c], sizeof made[c], "column%lld", (long long)c + 1);
        cols[c].name = names ? names[c] : made[c];
        cols[c].type = of_elem[type];
        types[c] = cols[c].type;
    }
    if (!dag__table_check_columns(cols, (int)ncols, 0, 1, "dag_table_from_array")) goto done;   /* (names only: no values yet) */
    if (!(t = dag__table_new_like(cols, (int)ncols, mt))) goto done;
    dag_array_tile_size(a, 0, 0, &rows, &fa.tile_cols);
    for (int64_t i = 0; i < mt; i++) {
        dag_array_tile_size(a, i, 0, &rows, &tcols);
        dag__table_set_rows(t, i, rows);
        for (int64_t j = 0; j < nt; j++) tiles[j * mt + i] = dag_array_tile(a, i, j);
    }
    fa.stash = (dag__table_builder *)dag__table_zalloc(sizeof(dag__table_builder) * (size_t)mt);
    if (!fa.stash) goto done;
    for (int64_t i = 0; i < mt; i++) fa.stash[i].ncols = (int)ncols;
    dag__table_job job;
    memset(&job, 0, sizeof job);
    job.who = "dag_table_from_array";
    job.units = mt;
    job.k = dag__builder_meta_words((int)ncols);
    job.owner = t->owner;
    job.run = dag__table_array_unit;
    job.absorb = dag__table_take_tile;
    job.sources = nt;
    job.pieces = tiles;
    job.op = &fa;
    if (dag__table_run(&job) != DAG_OK || !dag__table_adopt(t, job.meta, fa.stash, NULL, NULL)) dag_table_free(t), t = NULL;
    DAG_FREE(job.meta);
    for (int64_t i = 0; i < mt; i++) dag__builder_free(&fa.stash[i]);
done:
    DAG_FREE(fa.stash), DAG_FREE(cols), DAG_FREE(made), DAG_FREE(types), DAG_FREE(owner), DAG_FREE(tiles);
    dag__operand_end(given, a, false, DAG_OK);
    return t;
}

/* >>collect: a task per chunk's buffer writes it into the host columns,
   each registered whole (its tasks on it ordered): as each rank's own
   memory, so that over MPI every rank runs them and receives the chunks it
   does not own, or as one rank's, so that they run there alone. */
DAG_TASK(void, dag__table_copy_bytes, (const void *, from), (void *, to), (int64_t, at), (int64_t, bytes)) {
    memcpy((char *)to + at, from, (size_t)bytes);
}
DAG_TASK(void, dag__table_copy_offsets, (const int64_t *, from), (int64_t *, to), (int64_t, at), (int64_t, rows), (int64_t, base)) {
    for (int64_t i = 0; i <= rows; i++) to[at + i] = base + from[i];
}
/* rows bits into `to` from bit `shift` on */
DAG_TASK(void, dag__table_copy_bits, (const uint8_t *, from), (uint8_t *, to), (int64_t, rows), (int64_t, shift)) {
    for (int64_t i = 0; i < rows; i++) dag__table_set_bit(to, shift + i, dag__table_bit(from, i));
}

void dag_table_columns_free(dag_table_column *cols, int ncols) {
    for (int c = 0; cols && c < ncols; c++) DAG_FREE(cols[c].values), DAG_FREE(cols[c].chars), DAG_FREE(cols[c].valid);
    DAG_FREE(cols);
}
/* the bytes of column c's values, bitmap and characters, collected */
static void dag__table_collect_sizes(const dag_table *t, int c, int64_t *bytes) {
    bool str = t->types[c] == DAG_TABLE_STR;
    bytes[0] = (str ? t->rows + 1 : t->rows) * dag__table_width(t->types[c]);
    bytes[1] = dag__table_valid_bytes(t->rows);
    bytes[2] = 0;
    for (int64_t p = 0; str && p < t->nparts; p++) bytes[2] += t->chunk[p * t->ncols + c]->nchars;
}
static bool dag__table_collect_alloc(const dag_table *t, dag_table_column *out) {
    bool ok = true;
    for (int c = 0; c < t->ncols; c++) {
        int64_t bytes[3];
        dag__table_collect_sizes(t, c, bytes);
        out[c].name = t->names[c];
        out[c].type = t->types[c];
        out[c].values = dag__table_zalloc((size_t)bytes[0]);
        out[c].valid = (uint8_t *)dag__table_zalloc((size_t)bytes[1]);
        out[c].chars = t->types[c] == DAG_TABLE_STR ? (char *)dag__table_alloc((size_t)bytes[2]) : NULL;
        ok = ok && out[c].values && out[c].valid && (t->types[c] != DAG_TABLE_STR || out[c].chars);
    }
    return ok;
}
/* column c's copies from every partition into its host buffers h (values, bitmap, characters) */
static void dag__table_collect_column(const dag_table *t, int c, const dag_data *h, const dag_options *o) {
    int64_t w = dag__table_width(t->types[c]), base = 0;
    for (int64_t p = 0; p < t->nparts; p++) {
        const dag__table_chunk *k = t->chunk[p * t->ncols + c];
        int64_t first = t->first_row[p], n = k->rows;
        if (!n) continue;
        if (t->types[c] != DAG_TABLE_STR) {
            dag_spawn_with(o, dag__table_copy_bytes, In(k->values_h), InOut(h[0]), Val(first * w), Val(n * w));
        } else {
            dag_spawn_with(o, dag__table_copy_offsets, In(k->values_h), InOut(h[0]), Val(first), Val(n), Val(base));
            if (k->nchars) dag_spawn_with(o, dag__table_copy_bytes, In(k->chars_h), InOut(h[2]), Val(base), Val(k->nchars));
            base += k->nchars;
        }
        dag_spawn_with(o, dag__table_copy_bits, In(k->valid_h), InOut(h[1]), Val(n), Val(first));
    }
}
/* rank < 0: every rank */
static dag_result dag__table_collect(dag_table *t, int rank, dag_table_column **columns, const char *who) {
    dag__wait_spawned();
    if (columns) *columns = NULL;   /* (what a failure leaves, as dag_array_svd's outputs) */
    if (!t || !columns || rank >= dag_num_ranks()) {
        dag_log(DAG_LOG_ERROR, DAG_ERR_INVALID_ARGUMENT, "%s: %s", who, !t ? "the table is NULL" : !columns ? "columns is NULL" : "no such rank");
        return DAG_ERR_INVALID_ARGUMENT;
    }
    bool mine = rank < 0 || rank == dag_rank();
    dag_table_column *out = (dag_table_column *)dag__table_zalloc(sizeof(dag_table_column) * (size_t)t->ncols);
    dag_data *h = (dag_data *)dag__table_zalloc(sizeof(dag_data) * (size_t)(3 * t->ncols + 1));
    if (!out || !h || (mine && !dag__table_collect_alloc(t, out))) {
        dag_table_columns_free(out, t->ncols), DAG_FREE(h);
        dag_log(DAG_LOG_ERROR, DAG_ERR_OUT_OF_MEMORY, "%s: no memory for %lld rows", who, (long long)t->rows);
        return DAG_ERR_OUT_OF_MEMORY;
    }
    for (int c = 0; c < t->ncols; c++) {
        int64_t bytes[3];
        void *p[3] = { out[c].values, out[c].valid, out[c].chars };
        dag__table_collect_sizes(t, c, bytes);
        for (int j = 0; j < 3; j++) {   /* (values in elements of their width: the offsets' task takes int64s) */
            size_t elem = j ? 1 : (size_t)dag__table_width(t->types[c]), n = bytes[j] > 0 ? (size_t)bytes[j] / elem : 1;
            if (j < 2 || t->types[c] == DAG_TABLE_STR)
                h[3 * c + j] = rank < 0 ? dag_data_register(p[j], n, elem) : dag_data_register_on(rank, mine ? p[j] : NULL, n, elem);
        }
    }
    dag_options o = dag__table_options(who);
    DAG_DATADEPS {
        for (int c = 0; c < t->ncols; c++) dag__table_collect_column(t, c, h + 3 * c, &o);
    }
    dag_result r = dag_last_region_result();
    for (int j = 0; j < 3 * t->ncols; j++)
        if (h[j].id) dag_data_unregister(h[j]);
    DAG_FREE(h);
    if (r != DAG_OK || !mine) {
        dag_table_columns_free(out, t->ncols);
        return r;
    }
    *columns = out;
    return DAG_OK;
}
dag_result dag_table_collect(dag_table *t, dag_table_column **columns) { return dag__table_collect(t, -1, columns, "dag_table_collect"); }
dag_result dag_table_collect_to(dag_table *t, int rank, dag_table_column **columns) {
    return dag__table_collect(t, rank < 0 ? dag_num_ranks() : rank, columns, "dag_table_collect_to");
}

/* >>csv writing. A task per partition formats its rows on its owner (meta:
   the bytes); then, the offsets known, each owner writes its text at its
   place in the file, which rank 0 has made with the header. */
typedef struct dag__table_text { char *s; int64_t n, cap; bool failed; } dag__table_text;
static void dag__text_put(dag__table_text *x, const char *s, int64_t n) {
    if (x->n + n > x->cap) {
        int64_t cap = x->cap ? x->cap : 256;
        while (cap < x->n + n) cap *= 2;
        char *g = (char *)DAG_REALLOC(x->s, (size_t)cap);
        if (!g) {
            x->failed = true;
            return;
        }
        x->s = g, x->cap = cap;
    }
    memcpy(x->s + x->n, s, (size_t)n);
    x->n += n;
}
/* the shortest %g text that reads back as the same double (float: as the same float), with a point */
static int dag__table_format_real(char *buf, size_t size, double v, bool single) {
    if (v != v) return snprintf(buf, size, "nan");
    if (v == INFINITY || v == -INFINITY) return snprintf(buf, size, v > 0 ? "inf" : "-inf");
    int n = 0;
    for (int digits = single ? 6 : 15; digits <= (single ? 9 : 17); digits++) {
        n = snprintf(buf, size, "%.*g", digits, v);
        if (single ? strtof(buf, NULL) == (float)v : strtod(buf, NULL) == v) break;
    }
    /* a whole number keeps a point, as pandas writes it: read back, the column is real again */
    if (n > 0 && (size_t)n + 2 < size && !strpbrk(buf, ".en")) buf[n++] = '.', buf[n++] = '0', buf[n] = 0;
    return n;
}
static void dag__text_field(dag__table_text *x, const dag_table_column *col, int64_t i, char delim, bool alone) {
    char buf[64];
    int n = 0;
    if (!dag__table_bit(col->valid, i)) {   /* missing: an empty field; the only one of its line quoted, or the line */
        if (alone) dag__text_put(x, "\"\"", 2);   /* would be blank, which readers skip */
        return;
    }
    switch (col->type) {
    case DAG_TABLE_I32: n = snprintf(buf, sizeof buf, "%d", (int)((const int32_t *)col->values)[i]); break;
    case DAG_TABLE_I64: n = snprintf(buf, sizeof buf, "%lld", (long long)((const int64_t *)col->values)[i]); break;
    case DAG_TABLE_F32: n = dag__table_format_real(buf, sizeof buf, ((const float *)col->values)[i], true); break;
    case DAG_TABLE_F64: n = dag__table_format_real(buf, sizeof buf, ((const double *)col->values)[i], false); break;
    default: {
        int64_t len;
        const char *s = dag__table_str(col, i, &len);
        bool quote = len == 0;
        for (int64_t k = 0; k < len && !quote; k++) quote = s[k] == delim || s[k] == '"' || s[k] == '\n' || s[k] == '\r';
        if (!quote) {
            dag__text_put(x, s, len);
            return;
        }
        dag__text_put(x, "\"", 1);
        for (int64_t k = 0; k < len; k++) dag__text_put(x, s[k] == '"' ? "\"\"" : s + k, s[k] == '"' ? 2 : 1);   /* "" inside */
        dag__text_put(x, "\"", 1);
        return;
    }
    }
    bool quote = n > 0 && memchr(buf, delim, (size_t)n);   /* a delimiter numbers hold ('.', '-', a digit): quoted */
    if (quote) dag__text_put(x, "\"", 1);
    dag__text_put(x, buf, n);
    if (quote) dag__text_put(x, "\"", 1);
}

typedef struct dag__table_writer {
    dag_table *t;
    const char *path;
    char delim;
    bool header;
    dag__table_text *text;    /* each partition's, on its owner */
    const int64_t *at;        /* where each partition's text goes */
    int64_t header_bytes;
} dag__table_writer;
static void dag__table_format_unit(dag__table_job *job, int64_t p, int64_t *meta) {
    dag__table_writer *w = (dag__table_writer *)job->op;
    dag__table_text *x = &w->text[p];
    dag_table_view v;
    dag_table_column *cols = dag__table_view_new(w->t, p, &v);
    if (!cols) {
        dag__table_job_fail_memory(job, p);
        return;
    }
    for (int64_t i = 0; i < v.rows; i++)
        for (int c = 0; c < v.num_columns; c++) {
            dag__text_field(x, &cols[c], i, w->delim, v.num_columns == 1);
            dag__text_put(x, c + 1 < v.num_columns ? &w->delim : "\n", 1);
        }
    DAG_FREE(cols);
    if (x->failed) dag__table_job_fail_memory(job, p);
    meta[0] = x->n;
}
/* writes `n` bytes at `at` of the file (the header's unit: creates it) */
static bool dag__table_write_at(const char *path, int64_t at, const char *s, int64_t n, bool create) {
    FILE *f = fopen(path, create ? "wb" : "r+b");
    bool ok = f && fseek(f, (long)at, SEEK_SET) == 0 && (n == 0 || fwrite(s, 1, (size_t)n, f) == (size_t)n);
    if (f && fclose(f) != 0) ok = false;
    if (!ok) dag_fail(DAG_ERR_IO, "dag_table_write_csv: could not write %s", path);
    return ok;
}
static void dag__table_header_unit(dag__table_job *job, int64_t u, int64_t *meta) {
    dag__table_writer *w = (dag__table_writer *)job->op;
    dag__table_text x = { NULL, 0, 0, false };
    for (int c = 0; w->header && c < w->t->ncols; c++) {
        dag_table_column name = { 0 };
        int64_t off[2] = { 0, (int64_t)strlen(w->t->names[c]) };
        uint8_t valid = 1;
        name.type = DAG_TABLE_STR, name.values = off, name.chars = w->t->names[c], name.valid = &valid;
        dag__text_field(&x, &name, 0, w->delim, false);
        dag__text_put(&x, c + 1 < w->t->ncols ? &w->delim : "\n", 1);
    }
    meta[0] = x.n;
    if (x.failed) dag__table_job_fail_memory(job, u);
    else dag__table_write_at(w->path, 0, x.s, x.n, true);
    DAG_FREE(x.s);
}
static void dag__table_write_unit(dag__table_job *job, int64_t p, int64_t *meta) {
    dag__table_writer *w = (dag__table_writer *)job->op;
    meta[0] = w->text[p].n;
    dag__table_write_at(w->path, w->at[p], w->text[p].s, w->text[p].n, false);
}
dag_result dag_table_write_csv(dag_table *t, const char *path) { return dag_table_write_csv_with(t, path, NULL); }
dag_result dag_table_write_csv_with(dag_table *t, const char *path, const dag_table_csv_options *options) {
    dag__wait_spawned();
    char delim = options && options->delimiter ? options->delimiter : ',';
    if (!t || !path || delim == '"' || delim == '\n' || delim == '\r') {
        dag_log(DAG_LOG_ERROR, DAG_ERR_INVALID_ARGUMENT, "dag_table_write_csv: %s", !t ? "the table is NULL" : !path ? "the path is NULL"
                : "a quote or a line end cannot be the delimiter");
        return DAG_ERR_INVALID_ARGUMENT;
    }
    dag__table_writer w = { t, path, delim, !options || !options->no_header, NULL, NULL, 0 };
    int64_t *at = (int64_t *)dag__table_alloc(sizeof(int64_t) * (size_t)t->nparts);
    w.text = (dag__table_text *)dag__table_zalloc(sizeof(dag__table_text) * (size_t)t->nparts);
    w.at = at;
    static const int rank0 = 0;
    dag__table_job header, format, write;
    memset(&header, 0, sizeof header), memset(&format, 0, sizeof format), memset(&write, 0, sizeof write);
    dag_result r = !at || !w.text ? DAG_ERR_OUT_OF_MEMORY
                 : dag__table_job_of(&header, "dag_table_write_csv", 1, 1, &rank0, dag__table_header_unit, &w);
    if (r == DAG_OK) r = dag__table_job_of(&format, "dag_table_write_csv", t->nparts, 1, t->owner, dag__table_format_unit, &w);
    if (r == DAG_OK) {
        for (int64_t p = 0, s = header.meta[0]; p < t->nparts; s += format.meta[p], p++) at[p] = s;
        r = dag__table_job_of(&write, "dag_table_write_csv", t->nparts, 1, t->owner, dag__table_write_unit, &w);
    }
    for (int64_t p = 0; w.text && p < t->nparts; p++) DAG_FREE(w.text[p].s);
    DAG_FREE(w.text), DAG_FREE(at), DAG_FREE(header.meta), DAG_FREE(format.meta), DAG_FREE(write.meta);
    return r;
}

/* >>csv records: bytes of the file in memory, and the records in them
   (RFC 4180). A field is its bytes' place, quotes removed. */
typedef struct dag__csv_field { int64_t start, end; bool quoted, escaped; } dag__csv_field;

/* A chunk of the file in memory: bytes [lo, lo + n), n growing on demand. */
typedef struct dag__csv_buffer { char *b; int64_t lo, n; bool eof; } dag__csv_buffer;
static bool dag__csv_load(dag__csv_buffer *x, const char *path, int64_t lo, int64_t n, int64_t size) {
    if (lo + n >= size) n = size - lo, x->eof = true;
    char *b = (char *)DAG_REALLOC(x->b, (size_t)(n + 1));
    FILE *f = fopen(path, "rb");
    bool ok = b && f && fseek(f, (long)lo, SEEK_SET) == 0 && fread(b, 1, (size_t)n, f) == (size_t)n;
    if (f) fclose(f);
    if (b) x->b = b;
    x->lo = lo, x->n = n;
    return ok;
}

/* One record at x->b[pos]: its fields (at most max stored, all counted in
   *nfields) and the line ends inside it. Returns the position after it; -1
   when it runs past the bytes loaded and the file goes on; -2 on a bad
   quote (*why says). */
static int64_t dag__csv_record(const dag__csv_buffer *x, int64_t pos, char delim, dag__csv_field *f, int max, int *nfields,
                               int64_t *lines, const char **why) {
    const char *b = x->b;
    int64_t n = x->n;
    *nfields = 0;
    *lines = 0;
    for (;;) {
        dag__csv_field fd = { pos, pos, false, false };
        if (pos < n && b[pos] == '"') {
            fd.quoted = true;
            fd.start = ++pos;
            for (;;) {
                const char *q = (const char *)memchr(b + pos, '"', (size_t)(n - pos));
                for (const char *l = b + pos; (l = (const char *)memchr(l, '\n', (size_t)((q ? q : b + n) - l))) != NULL; l++) ++*lines;
                if (!q) {
                    if (!x->eof) return -1;
                    *why = "a quoted field that never ends";
                    return -2;
                }
                pos = q - b;
                if (pos + 1 < n && b[pos + 1] == '"') {
                    fd.escaped = true;
                    pos += 2;
                    continue;
                }
                if (pos + 1 >= n && !x->eof) return -1;
                fd.end = pos++;
                break;
            }
            if (pos < n && b[pos] == '\r') pos++;
            if (pos < n && b[pos] != delim && b[pos] != '\n') {
                *why = "a character after a closing quote";
                return -2;
            }
        } else {
            while (pos < n && b[pos] != delim && b[pos] != '\n' && b[pos] != '"' && b[pos] != '\r') pos++;
            if (pos < n && b[pos] == '"') {   /* the chunks find their first records by the quotes' parity */
                *why = "a quote inside an unquoted field (quote the whole field and double its quotes)";
                return -2;
            }
            fd.end = pos;
            if (pos < n && b[pos] == '\r') {   /* CRLF ends a line; a CR alone, RFC 4180 has only in quotes */
                if (pos + 1 >= n && !x->eof) return -1;
                if (pos + 1 < n && b[pos + 1] != '\n') {
                    *why = "a carriage return not followed by a line feed (lines that end in a CR alone, as old Mac "
                           "files' do, are not read: make them LF or CRLF; a CR inside a value needs the field quoted)";
                    return -2;
                }
                pos++;
            }
        }
        if (*nfields < max) f[*nfields] = fd;
        ++*nfields;
        if (pos >= n) return x->eof ? n : -1;
        if (b[pos++] == '\n') {
            ++*lines;
            return pos;
        }
    }
}

/* >>csv values. Integers and decimals of up to 19 digits without an
   exponent take the fast way (exact: a 53-bit integer over an exact power
   of ten), the rest strtod. */
static bool dag__csv_int(const char *s, int64_t n, int64_t *out) {
    int64_t i = 0;
    bool neg = n > 0 && s[0] == '-';
    uint64_t v = 0, most = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;   /* INT64_MIN's magnitude too */
    if (n > 0 && (s[0] == '-' || s[0] == '+')) i = 1;
    if (i == n) return false;
    for (; i < n; i++) {
        if (s[i] < '0' || s[i] > '9' || v > (most - (uint64_t)(s[i] - '0')) / 10) return false;
        v = v * 10 + (uint64_t)(s[i] - '0');
    }
    *out = neg ? (int64_t)(0 - v) : (int64_t)v;   /* 0 - v in unsigned: INT64_MIN without overflow */
    return true;
}
static bool dag__csv_real(const char *s, int64_t n, double *out) {
    static const double tens[] = { 1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
                                   1e17, 1e18, 1e19, 1e20, 1e21, 1e22 };
    int64_t i = n > 0 && (s[0] == '-' || s[0] == '+'), digits = 0, frac = -1;
    uint64_t m = 0;
    for (; i < n && digits < 19; i++) {
        if (s[i] == '.' && frac < 0) frac = 0;
        else if (s[i] >= '0' && s[i] <= '9') m = m * 10 + (uint64_t)(s[i] - '0'), digits++, frac += frac >= 0;
        else break;
    }
    if (i == n && digits && m < (UINT64_C(1) << 53)) {
        *out = (double)m / tens[frac > 0 ? frac : 0];
        if (s[0] == '-') *out = -*out;
        return true;
    }
    /* strtod reads hex (0x1A) and skips leading spaces: such fields are text, as pandas and DuckDB read them */
    for (int64_t k = 0; k < n; k++)
        if (s[k] == 'x' || s[k] == 'X' || s[k] == ' ' || s[k] == '\t') return false;
    char small[64], *buf = n < (int64_t)sizeof small ? small : (char *)DAG_MALLOC((size_t)n + 1), *end;   /* long digits too */
    if (n <= 0 || !buf) return false;
    memcpy(buf, s, (size_t)n);
    buf[n] = 0;
    *out = strtod(buf, &end);
    bool whole = end == buf + n;
    if (buf != small) DAG_FREE(buf);
    return whole;
}
/* The text of a field (quotes removed, "" unescaped into *scratch). */
static const char *dag__csv_text(const dag__csv_buffer *x, const dag__csv_field *f, char **scratch, int64_t *len) {
    const char *s = x->b + f->start;
    *len = f->end - f->start;
    if (!f->escaped) return s;
    char *d = (char *)DAG_REALLOC(*scratch, (size_t)*len + 1);
    if (!d) return NULL;
    *scratch = d;
    int64_t k = 0;
    for (int64_t i = 0; i < *len; i++) {
        d[k++] = s[i];
        if (s[i] == '"') i++;   /* "" is one quote */
    }
    *len = k;
    return d;
}
/* Appends field f to column c of b as its type; false (and *why) when it is not one. */
static bool dag__csv_put(dag__table_builder *b, int c, const char *s, int64_t len, const char **why) {
    int64_t i = b->rows, iv = 0;
    double dv = 0;
    int type = b->types[c];
    bool present = len > 0;
    dag__table_set_bit(b->cols[c].valid, i, present);
    if (type == DAG_TABLE_STR) {
        if (!dag__builder_reserve_chars(b, c, len)) return !(*why = "no memory");
        memcpy(b->cols[c].chars + b->nchars[c], s, (size_t)len);
        b->nchars[c] += len;
        ((int64_t *)b->cols[c].values)[i + 1] = b->nchars[c];
        return true;
    }
    if (type == DAG_TABLE_I32 || type == DAG_TABLE_I64) {
        if (present && (!dag__csv_int(s, len, &iv) || (type == DAG_TABLE_I32 && (iv < INT32_MIN || iv > INT32_MAX))))
            return !(*why = type == DAG_TABLE_I32 ? "is not an int32" : "is not an int64");
        if (type == DAG_TABLE_I32) ((int32_t *)b->cols[c].values)[i] = (int32_t)iv;
        else ((int64_t *)b->cols[c].values)[i] = iv;
        return true;
    }
    if (present && !dag__csv_real(s, len, &dv)) return !(*why = "is not a number");
    if (type == DAG_TABLE_F32) ((float *)b->cols[c].values)[i] = (float)dv;
    else ((double *)b->cols[c].values)[i] = dv;
    return true;
}

/* >>csv reading. The file is cut into chunks of bytes, a partition each.
   A first job counts each chunk's quotes and line ends; from those every
   rank knows whether a chunk starts inside a quoted field and on which
   line. A second job parses each chunk on its owner: its records are those
   that start in it (the last may run past its end). */
typedef struct dag__csv {
    const char *path;
    char delim;
    int header, ncols;
    int64_t size, chunk;
    int *types;
    int64_t *scan;               /* per chunk: quotes, line ends (every rank) */
    dag_table *t;
} dag__csv;

static void dag__csv_scan_unit(dag__table_job *job, int64_t k, int64_t *meta) {
    dag__csv *csv = (dag__csv *)job->op;
    dag__csv_buffer x = { NULL, 0, 0, false };
    int64_t lo = k * csv->chunk, n = csv->chunk;
    meta[0] = meta[1] = 0;
    if (!dag__csv_load(&x, csv->path, lo, lo + n < csv->size ? n : csv->size - lo, csv->size + 1)) {
        dag_fail(DAG_ERR_IO, "dag_table_read_csv: could not read %s", csv->path);
    } else {
        for (int64_t i = 0; i < x.n; i++) meta[0] += x.b[i] == '"', meta[1] += x.b[i] == '\n';
    }
    DAG_FREE(x.b);
}

/* The first record that starts in chunk k at or after x->b[pos] (pos: the
   chunk's start), counting the lines passed; -1 if none starts in it. */
static int64_t dag__csv_first_record(const dag__csv *csv, const dag__csv_buffer *x, int64_t k, int64_t end, int64_t *line) {
    int64_t start = k * csv->chunk, quotes = 0;
    for (int64_t j = 0; j < k; j++) quotes += csv->scan[2 * j];
    bool in_quotes = quotes % 2;
    if (k == 0 || (!in_quotes && x->b[start - 1 - x->lo] == '\n')) return start;
    for (int64_t pos = start; pos < end; pos++) {
        char ch = x->b[pos - x->lo];
        if (ch == '"') in_quotes = !in_quotes;
        if (ch == '\n') {
            ++*line;
            if (!in_quotes) return pos + 1 < end ? pos + 1 : -1;
        }
    }
    return -1;
}
/* Where a file's first record starts: after a UTF-8 byte order mark (Excel's "CSV UTF-8" writes one), or at 0. */
static int64_t dag__csv_bom(const dag__csv_buffer *x) {
    return x->lo == 0 && x->n >= 3 && (unsigned char)x->b[0] == 0xEF && (unsigned char)x->b[1] == 0xBB &&
                   (unsigned char)x->b[2] == 0xBF ? 3 : 0;
}
static bool dag__csv_parse(dag__csv *csv, int64_t k, dag__table_builder *into) {
    int64_t start = k * csv->chunk, end = start + csv->chunk < csv->size ? start + csv->chunk : csv->size, line = 1;
    for (int64_t j = 0; j < k; j++) line += csv->scan[2 * j + 1];
    dag__csv_buffer x = { NULL, 0, 0, false };
    dag__csv_field *f = (dag__csv_field *)dag__table_alloc(sizeof(dag__csv_field) * (size_t)csv->ncols);
    char *scratch = NULL;
    const char *why = NULL;
    int64_t lo = start ? start - 1 : 0, more = 1 << 16, pos, lines;
    bool ok = f && dag__csv_load(&x, csv->path, lo, end - lo + more, csv->size);
    if (!ok) why = f ? "could not be read" : "no memory";
    pos = ok ? dag__csv_first_record(csv, &x, k, end, &line) : -1;
    if (pos == 0) pos = dag__csv_bom(&x);
    bool skip = k == 0 && csv->header;   /* the header: read already */
    while (ok && pos >= 0 && pos < end) {
        int nf;
        int64_t next = dag__csv_record(&x, pos - x.lo, csv->delim, f, csv->ncols, &nf, &lines, &why);
        if (next == -1) {   /* the record runs on: load more and read it again */
            more *= 4;
            ok = dag__csv_load(&x, csv->path, x.lo, end - x.lo + more, csv->size);
            if (!ok) why = "could not be read";
            continue;
        }
        if (next == -2) break;
        bool blank = nf == 1 && !f[0].quoted && f[0].end == f[0].start;
        if (!skip && !blank) {
            if (nf != csv->ncols) {
                char msg[64];
                snprintf(msg, sizeof msg, "%d fields where the header has %d", nf, csv->ncols);
                dag_fail(DAG_ERR_INVALID_ARGUMENT, "dag_table_read_csv: %s: line %lld: %s", csv->path, (long long)line, msg);
                ok = false;
                break;
            }
            ok = dag__builder_reserve(into, 1);
            for (int c = 0; ok && c < csv->ncols; c++) {
                int64_t len;
                const char *s = dag__csv_text(&x, &f[c], &scratch, &len);
                if (!s || !dag__csv_put(into, c, s, len, &why)) {
                    dag_fail(DAG_ERR_INVALID_ARGUMENT, "dag_table_read_csv: %s: line %lld, column '%s': '%.*s' %s", csv->path,
                             (long long)line, csv->t->names[c], (int)(len < 40 ? len : 40), s ? s : "", why ? why : "no memory");
                    ok = false, why = NULL;
                }
            }
            into->rows += ok;
        }
        skip = false;
        line += lines;
        pos = x.lo + next;
    }
    if (why) dag_fail(DAG_ERR_INVALID_ARGUMENT, "dag_table_read_csv: %s: line %lld: %s", csv->path, (long long)line, why);
    DAG_FREE(x.b), DAG_FREE(f), DAG_FREE(scratch);
    return ok && !why;
}
static bool dag__csv_parse_unit(dag__table_build *b, int64_t k, dag__table_builder *into) {
    return dag__csv_parse((dag__csv *)b->op, k, into);
}

/* The header and the column types, from the first MiB of the file (every
   rank reads it): integers where every value is one, then doubles, else
   strings. */
enum { DAG__CSV_SNIFF_BYTES = 1 << 20, DAG__CSV_MAX_COLUMNS = 4096 };
static dag_table *dag__csv_head(dag__csv *csv, const dag_table_csv_options *o, int64_t nparts) {
    dag__csv_buffer x = { NULL, 0, 0, false };
    dag__csv_field *f = (dag__csv_field *)dag__table_alloc(sizeof(dag__csv_field) * DAG__CSV_MAX_COLUMNS);
    char **names = (char **)dag__table_zalloc(sizeof(char *) * DAG__CSV_MAX_COLUMNS);
    dag_table_type *types = (dag_table_type *)dag__table_zalloc(sizeof(dag_table_type) * DAG__CSV_MAX_COLUMNS);
    int *maybe = (int *)dag__table_zalloc(sizeof(int) * DAG__CSV_MAX_COLUMNS);   /* bit 0: int, 1: real, 2: any value */
    dag_table *t = NULL;
    const char *why = NULL;
    char *scratch = NULL;
    int nf = 0, ncols = 0;
    int64_t lines, pos = 0;
    if (!f || !names || !types || !maybe || !dag__csv_load(&x, csv->path, 0, DAG__CSV_SNIFF_BYTES, csv->size)) {
        dag_log(DAG_LOG_ERROR, DAG_ERR_IO, "dag_table_read_csv: could not read %s", csv->path);
        goto done;
    }
    pos = dag__csv_bom(&x);
    for (int64_t row = 0; pos < x.n; row++) {   /* every row of the first MiB, however short */
        int64_t next = dag__csv_record(&x, pos, csv->delim, f, DAG__CSV_MAX_COLUMNS, &nf, &lines, &why);
        if (next == -2 && row == 0) {   /* the header itself: there is no table to parse */
            dag_log(DAG_LOG_ERROR, DAG_ERR_INVALID_ARGUMENT, "dag_table_read_csv: %s: line 1: %s", csv->path, why);
            goto done;
        }
        if (next < 0) break;   /* past the sample, or a bad row: the parse names its line */
        if (row == 0 && nf > DAG__CSV_MAX_COLUMNS) {
            dag_log(DAG_LOG_ERROR, DAG_ERR_INVALID_ARGUMENT, "dag_table_read_csv: %s: its first line has %d fields; a "
                    "table reads at most %d columns", csv->path, nf, (int)DAG__CSV_MAX_COLUMNS);
            goto done;
        }
        if (row == 0) {
            ncols = nf;
            for (int c = 0; c < ncols; c++) {
                int64_t len;
                const char *s = csv->header ? dag__csv_text(&x, &f[c], &scratch, &len) : NULL;
                char made[32];
                if (!s) len = snprintf(made, sizeof made, "column%d", c + 1), s = made;
                char *name = (char *)dag__table_alloc((size_t)len + 1);
                if (name) memcpy(name, s, (size_t)len), name[len] = 0;
                names[c] = name ? dag__table_fresh_name(names, c, name, "") : NULL;   /* a repeated name: name_2, ... */
                DAG_FREE(name);
                maybe[c] = 3;
            }
        }
        for (int c = 0; (row > 0 || !csv->header) && nf == ncols && c < ncols; c++) {
            int64_t len, iv;
            double dv;
            const char *s = dag__csv_text(&x, &f[c], &scratch, &len);
            if (!s || !len) continue;
            if (!dag__csv_int(s, len, &iv)) maybe[c] &= ~1;
            if (!dag__csv_real(s, len, &dv)) maybe[c] &= ~2;
            maybe[c] |= 4;
        }
        pos = next;
    }
    for (int c = 0; c < ncols; c++) {
        types[c] = c < o->num_types && o->types ? o->types[c] : (maybe[c] & 5) == 5 ? DAG_TABLE_I64 : (maybe[c] & 6) == 6 ? DAG_TABLE_F64 : DAG_TABLE_STR;
        if (!names[c] || types[c] < DAG_TABLE_I32 || types[c] > DAG_TABLE_STR) ncols = 0;
    }
    if (!ncols || (o->types && o->num_types != ncols))
        dag_log(DAG_LOG_ERROR, DAG_ERR_INVALID_ARGUMENT, "dag_table_read_csv: %s: %s", csv->path,
                !ncols ? "no header line (or a bad type)" : "the number of types differs from the header's columns");
    else t = dag__table_new(ncols, (const char *const *)names, types, nparts, NULL);
done:
    for (int c = 0; names && c < DAG__CSV_MAX_COLUMNS; c++) DAG_FREE(names[c]);
    DAG_FREE(x.b), DAG_FREE(f), DAG_FREE(names), DAG_FREE(types), DAG_FREE(maybe), DAG_FREE(scratch);
    return t;
}

dag_table *dag_table_read_csv(const char *path, const dag_table_csv_options *options) {
    dag__wait_spawned();
    dag_table_csv_options none;
    memset(&none, 0, sizeof none);
    const dag_table_csv_options *o = options ? options : &none;
    dag__csv csv;
    memset(&csv, 0, sizeof csv);
    csv.path = path;
    csv.delim = o->delimiter ? o->delimiter : ',';
    if (csv.delim == '"' || csv.delim == '\n' || csv.delim == '\r' || o->chunk_bytes < 0) {
        dag_log(DAG_LOG_ERROR, DAG_ERR_INVALID_ARGUMENT, "dag_table_read_csv: %s", o->chunk_bytes < 0
                ? "chunk_bytes is negative (0 for the default)" : "a quote or a line end cannot be the delimiter");
        return NULL;
    }
    csv.header = !o->no_header;
    csv.chunk = o->chunk_bytes > 0 ? o->chunk_bytes : (int64_t)8 << 20;
    FILE *f = path ? fopen(path, "rb") : NULL;
    if (!f || fseek(f, 0, SEEK_END) != 0 || (csv.size = (int64_t)ftell(f)) < 0) {
        if (f) fclose(f);
        dag_log(DAG_LOG_ERROR, DAG_ERR_IO, "dag_table_read_csv: could not open %s", path ? path : "(NULL)");
        return NULL;
    }
    fclose(f);
    int64_t nparts = csv.size ? csv.size / csv.chunk + (csv.size % csv.chunk != 0) : 1;   /* no overflow near INT64_MAX */
    if (!(csv.t = dag__csv_head(&csv, o, nparts))) return NULL;
    csv.ncols = csv.t->ncols;
    csv.types = dag__table_types_of(csv.t);
    dag__table_job scan;
    dag_result r = csv.types ? dag__table_job_of(&scan, "dag_table_read_csv", nparts, 2, csv.t->owner, dag__csv_scan_unit, &csv)
                             : DAG_ERR_OUT_OF_MEMORY;
    dag_table *t = csv.t;
    if (r == DAG_OK) {
        csv.scan = scan.meta;
        dag__table_build b = { csv.t, NULL, dag__csv_parse_unit, csv.types, &csv, NULL, NULL };
        t = dag__table_build_run(&b, "dag_table_read_csv");
    } else {
        dag_table_free(csv.t), t = NULL;
    }
    if (csv.types) DAG_FREE(scan.meta);
    DAG_FREE(csv.types);
    return t;
}

/* >>operations: what they share */
/* columns of t by name into idx; false (logged) when one is not there */
static bool dag__table_columns_named(const dag_table *t, const char *const *names, int n, int *idx, const char *who) {
    for (int i = 0; i < n; i++)
        if ((idx[i] = dag_table_column_index(t, names ? names[i] : NULL)) < 0) {
            dag_log(DAG_LOG_ERROR, DAG_ERR_INVALID_ARGUMENT, "%s: no column '%s'", who, names && names[i] ? names[i] : "(NULL)");
            return false;
        }
    return true;
}
static bool dag__table_usable(const dag_table *t, const char *who) {
    if (t) return true;
    dag_log(DAG_LOG_ERROR, DAG_ERR_INVALID_ARGUMENT, "%s: no table", who);
    return false;
}
/* A table of t's partitioning (same owners and rows) whose column c is t's column from[c], shared
   (from[c] >= 0), or a new one named names[c] of types[c] to build (from[c] < 0). */
static dag_table *dag__table_derive(const dag_table *t, int ncols, const int *from, const char *const *names,
                                    const dag_table_type *types) {
    const char **n = (const char **)dag__table_alloc(sizeof(char *) * (size_t)ncols);
    dag_table_type *ty = (dag_table_type *)dag__table_alloc(sizeof(dag_table_type) * (size_t)ncols);
    dag_table *d = NULL;
    if (n && ty) {
        for (int c = 0; c < ncols; c++) n[c] = from[c] >= 0 ? t->names[from[c]] : names[c], ty[c] = from[c] >= 0 ? t->types[from[c]] : types[c];
        d = dag__table_new(ncols, n, ty, t->nparts, t->owner);
    }
    for (int64_t p = 0; d && p < t->nparts; p++) {
        dag__table_set_rows(d, p, t->part_rows[p]);
        for (int c = 0; c < ncols; c++)
            if (from[c] >= 0) dag__table_share_chunk(d, p, c, t->chunk[p * t->ncols + from[c]]);
    }
    DAG_FREE(n), DAG_FREE(ty);
    return d;
}

static dag_table *dag__table_pick(dag_table *t, const char *const *names, int count, bool keep, const char *who) {
    dag__wait_spawned();
    int *idx = (int *)dag__table_alloc(sizeof(int) * (size_t)(count + 1)), *from = NULL;
    dag_table *d = NULL;
    if (!dag__table_usable(t, who) || !idx || count < 0 || !dag__table_columns_named(t, names, count, idx, who)) goto done;
    if (!(from = (int *)dag__table_alloc(sizeof(int) * (size_t)(t->ncols + count + 1)))) goto done;
    int n = 0;
    if (keep) {
        for (int i = 0; i < count; i++) from[n++] = idx[i];
    } else {
        for (int c = 0; c < t->ncols; c++) {
            bool dropped = false;
            for (int i = 0; i < count; i++) dropped |= idx[i] == c;
            if (!dropped) from[n++] = c;
        }
    }
    for (int i = 0; i < n; i++)
        for (int j = 0; j < i; j++)
            if (from[i] == from[j]) {
                dag_log(DAG_LOG_ERROR, DAG_ERR_INVALID_ARGUMENT, "%s: column '%s' named twice", who, t->names[from[i]]);
                goto done;
            }
    if (!n) dag_log(DAG_LOG_ERROR, DAG_ERR_INVALID_ARGUMENT, "%s: no column would be left", who);
    else d = dag__table_derive(t, n, from, NULL, NULL);
done:
    DAG_FREE(idx), DAG_FREE(from);
    return d;
}
dag_table *dag_table_select(dag_table *t, const char *const *names, int count) {
    return dag__table_pick(t, names, count, true, "dag_table_select");
}
dag_table *dag_table_drop(dag_table *t, const char *const *names, int count) {
    return dag__table_pick(t, names, count, false, "dag_table_drop");
}

/* >>head: the first rows of each partition it needs, on its owner */
typedef struct dag__table_rows_of { const dag_table *in; int64_t limit; } dag__table_rows_of;
static bool dag__table_head_part(dag__table_build *b, int64_t p, dag__table_builder *into) {
    const dag__table_rows_of *h = (const dag__table_rows_of *)b->op;
    dag_table_view v;
    dag_table_column *cols = dag__table_view_new(h->in, p, &v);
    if (!cols) return !(into->failed = true);
    int64_t keep = h->limit - v.first_row < v.rows ? h->limit - v.first_row : v.rows;
    bool ok = dag__builder_append(into, &v, NULL, keep);
    DAG_FREE(cols);
    return ok;
}
dag_table *dag_table_head(dag_table *t, int64_t rows) {
    dag__wait_spawned();
    if (!dag__table_usable(t, "dag_table_head")) return NULL;
    if (rows < 0) rows = rows < -t->rows ? 0 : t->rows + rows;   /* all but the last -rows, as pandas */
    if (rows > t->rows) rows = t->rows;
    dag__mpi_agree_numbers("dag_table_head (rows)", &rows, 1);   /* (each owner cuts its partitions by it) */
    int64_t parts = 1;
    while (parts < t->nparts && t->first_row[parts] < rows) parts++;
    dag_table *d = dag__table_like(t, parts, t->owner);
    int *types = d ? dag__table_types_of(d) : NULL;
    dag__table_rows_of h = { t, rows };
    dag__table_build b = { d, NULL, dag__table_head_part, types, &h, NULL, NULL };
    d = types ? dag__table_build_run(&b, "dag_table_head") : (dag_table_free(d), NULL);
    DAG_FREE(types);
    return d;
}

/* >>map: the new columns of each partition made by the user's function on its owner */
typedef struct dag__table_mapping {
    const dag_table *in;
    dag_table_map_fn fn;             /* new columns of numbers, */
    dag_table_string_fn string_fn;   /* or one of strings */
    void *user;
    const int *out_col;   /* each new column's place in the result */
    int num_new;
} dag__table_mapping;
/* the strings of column c of into, row by row from the user's function, each into the bytes left (then, if they were too few,
   again into room for it) */
static bool dag__table_map_strings(const dag__table_mapping *m, const dag_table_view *v, dag__table_builder *into, int c) {
    int64_t *off = (int64_t *)into->cols[c].values;
    off[0] = 0;
    for (int64_t i = 0; i < v->rows; i++) {
        int64_t len = 0, room = 0;
        for (int again = 0; again < 2 && (again == 0 || len > room); again++) {
            if (!dag__builder_reserve_chars(into, c, again ? len + 1 : 64)) return false;
            room = into->chars_cap[c] - into->nchars[c] - 1;   /* (one byte more, for a NUL) */
            len = m->string_fn(v, i, into->cols[c].chars + into->nchars[c], room, m->user);
            if (len < -1 || len == INT64_MAX) {   /* (INT64_MAX: no room could be made for it) */
                dag_fail(DAG_ERR_INVALID_ARGUMENT, "dag_table_map_string: row %lld: the function returned %lld (a length "
                         "from 0 to the room given, or -1 for a missing value)", (long long)(v->first_row + i),
                         (long long)len);
                return false;
            }
        }
        if (len > room) {
            dag_fail(DAG_ERR_INVALID_ARGUMENT, "dag_table_map_string: row %lld: a longer string when given room for it",
                     (long long)(v->first_row + i));
            return false;
        }
        dag__table_set_bit(into->cols[c].valid, i, len >= 0);
        into->nchars[c] += len > 0 ? len : 0;
        off[i + 1] = into->nchars[c];
    }
    return true;
}
static bool dag__table_map_part(dag__table_build *b, int64_t p, dag__table_builder *into) {
    const dag__table_mapping *m = (const dag__table_mapping *)b->op;
    dag_table_column *cols = (dag_table_column *)dag__table_alloc(sizeof(dag_table_column) * (size_t)(m->in->ncols + m->num_new));
    dag_table_view v;
    if (!cols || !dag__builder_reserve(into, m->in->part_rows[p])) {
        DAG_FREE(cols);
        return !(into->failed = true);
    }
    dag__table_view_of(m->in, p, &v, cols);
    dag_table_column *out = cols + m->in->ncols;
    for (int k = 0; k < m->num_new; k++) {
        out[k] = into->cols[m->out_col[k]];
        out[k].name = b->out->names[m->out_col[k]];
        memset(out[k].valid, 0xff, (size_t)dag__table_valid_bytes(v.rows));
    }
    bool ok = true;
    if (m->string_fn) ok = dag__table_map_strings(m, &v, into, m->out_col[0]);
    else m->fn(&v, out, m->num_new, m->user);
    into->rows = v.rows;
    DAG_FREE(cols);
    return ok;
}
/* t's columns with new ones replacing or appended: from[c] and *ncols as dag__table_derive takes them */
static int *dag__table_with_new(const dag_table *t, const char *const *names, int num_new, int *ncols, int *place) {
    int *from = (int *)dag__table_alloc(sizeof(int) * (size_t)(t->ncols + num_new));
    if (!from) return NULL;
    for (int c = 0; c < t->ncols; c++) from[c] = c;
    *ncols = t->ncols;
    for (int k = 0; k < num_new; k++) {   /* (their names differ: dag_table_map checks) */
        int c = dag_table_column_index(t, names[k]);
        place[k] = c >= 0 ? c : (*ncols)++;
        from[place[k]] = -1;
    }
    return from;
}
/* t with the new columns (replacing or appended), m's function making them */
static dag_table *dag__table_map_run(dag_table *t, dag__table_mapping *m, const dag_table_new_column *new_columns, int num_new) {
    int ncols = 0, *place = (int *)dag__table_alloc(sizeof(int) * (size_t)num_new), *from = NULL, *built = NULL;
    const char **names = (const char **)dag__table_alloc(sizeof(char *) * (size_t)(t->ncols + num_new));
    dag_table_type *types = (dag_table_type *)dag__table_alloc(sizeof(dag_table_type) * (size_t)(t->ncols + num_new));
    dag_table *d = NULL;
    for (int k = 0; names && types && k < num_new; k++) names[k] = new_columns[k].name;
    if (place && names && types && (from = dag__table_with_new(t, names, num_new, &ncols, place)) &&
        (built = (int *)dag__table_zalloc(sizeof(int) * (size_t)ncols))) {
        for (int k = 0; k < num_new; k++)
            names[place[k]] = new_columns[k].name, types[place[k]] = new_columns[k].type, built[place[k]] = new_columns[k].type;
        d = dag__table_derive(t, ncols, from, names, types);
    }
    m->out_col = place, m->num_new = num_new;
    dag__table_build b = { d, NULL, dag__table_map_part, built, m, NULL, NULL };
    if (d) d = dag__table_build_run(&b, "dag_table_map");
    DAG_FREE(place), DAG_FREE(from), DAG_FREE(built), DAG_FREE(names), DAG_FREE(types);
    return d;
}
dag_table *dag_table_map(dag_table *t, dag_table_map_fn fn, void *user, const dag_table_new_column *new_columns, int num_new) {
    dag__wait_spawned();
    if (!dag__table_usable(t, "dag_table_map")) return NULL;
    bool ok = fn && new_columns && num_new > 0;
    for (int k = 0; ok && k < num_new; k++)
        ok = new_columns[k].name && new_columns[k].type >= DAG_TABLE_I32 && new_columns[k].type < DAG_TABLE_STR;
    if (!ok) {
        dag_log(DAG_LOG_ERROR, DAG_ERR_INVALID_ARGUMENT, "dag_table_map: needs a function and new columns, each with a name "
                "and a type of numbers (int32, int64, float, double; dag_table_map_string makes strings)");
        return NULL;
    }
    for (int k = 0; k < num_new; k++)
        for (int j = 0; j < k; j++)
            if (!strcmp(new_columns[j].name, new_columns[k].name)) {   /* (one of the two would be lost) */
                dag_log(DAG_LOG_ERROR, DAG_ERR_INVALID_ARGUMENT, "dag_table_map: new column '%s' named twice",
                        new_columns[k].name);
                return NULL;
            }
    dag__table_mapping m = { t, fn, NULL, user, NULL, 0 };
    return dag__table_map_run(t, &m, new_columns, num_new);
}
dag_table *dag_table_map_string(dag_table *t, dag_table_string_fn fn, void *user, const char *name) {
    dag__wait_spawned();
    if (!dag__table_usable(t, "dag_table_map_string")) return NULL;
    if (!fn || !name) {
        dag_log(DAG_LOG_ERROR, DAG_ERR_INVALID_ARGUMENT, "dag_table_map_string: needs a function and a column name");
        return NULL;
    }
    dag__table_mapping m = { t, NULL, fn, user, NULL, 0 };
    dag_table_new_column column = { name, DAG_TABLE_STR };
    return dag__table_map_run(t, &m, &column, 1);
}

/* map with a kernel: the new column's chunks are made (and registered) first, then a kernel task per
   partition reads the input's values and writes them, and a copy task gives it the input's bitmap */
dag_table *dag_table_map_kernel_desc(dag_table *t, const dag_task_desc *kernel, const char *in, const char *out,
                                     dag_table_type out_type) {
    dag__wait_spawned();
    int c_in = dag_table_column_index(t, in), ncols = 0, place = 0, *from = NULL;
    if (!dag__table_usable(t, "dag_table_map_kernel") || !kernel || !kernel->kernel || kernel->num_params != 3 || c_in < 0 ||
        !out || t->types[c_in] == DAG_TABLE_STR || out_type < DAG_TABLE_I32 || out_type >= DAG_TABLE_STR) {
        dag_log(DAG_LOG_ERROR, DAG_ERR_INVALID_ARGUMENT, "dag_table_map_kernel: needs a DAG_KERNEL of two parameters (x, y), "
                "a column of numbers (%s) and a new column's name and type of numbers", in ? in : "NULL");
        return NULL;
    }
    const char **names = (const char **)dag__table_alloc(sizeof(char *) * (size_t)(t->ncols + 1));
    dag_table_type *types = (dag_table_type *)dag__table_alloc(sizeof(dag_table_type) * (size_t)(t->ncols + 1));
    dag_table *d = NULL;
    if (names && types && (from = dag__table_with_new(t, &out, 1, &ncols, &place))) {
        names[place] = out, types[place] = out_type;
        d = dag__table_derive(t, ncols, from, names, types);
    }
    DAG_FREE(from), DAG_FREE(names), DAG_FREE(types);
    int64_t w = dag__table_width(out_type);
    for (int64_t p = 0; d && p < d->nparts; p++) {
        int64_t n = d->part_rows[p];
        bool mine = d->owner[p] == dag_rank();
        void *values = mine ? dag__table_alloc((size_t)(n * w)) : NULL;
        uint8_t *valid = mine ? (uint8_t *)dag__table_alloc((size_t)dag__table_valid_bytes(n)) : NULL;
        if ((mine && (!values || !valid)) ||
            !dag__table_adopt_chunk(d, p, place, n, 0, values, NULL, valid, DAG__TABLE_OWN_VALUES | DAG__TABLE_OWN_VALID)) {
            if (!d->chunk[p * d->ncols + place]) DAG_FREE(values), DAG_FREE(valid);
            dag_table_free(d), d = NULL;
        }
    }
    if (!d) return NULL;
    dag_options copy = dag__table_options("dag_table_map_kernel");
    static const dag_elem elem_of[] = { (dag_elem)0, DAG_I32, DAG_I64, DAG_F32, DAG_F64 };   /* (the kernel's check) */
    DAG_DATADEPS {
        for (int64_t p = 0; p < d->nparts; p++) {
            const dag__table_chunk *src = t->chunk[p * t->ncols + c_in], *dst = d->chunk[p * d->ncols + place];
            if (!src->rows) continue;
            dag_arg args[3] = { DAG_VAL((size_t)src->rows), dag__typed_arg(In(src->values_h), elem_of[t->types[c_in]]),
                                dag__typed_arg(Out(dst->values_h), elem_of[out_type]) };
            dag_spawn_desc(kernel, args, 3, NULL);
            dag_spawn_with(&copy, dag__table_copy_bytes, In(src->valid_h), Out(dst->valid_h), Val((int64_t)0),
                           Val(dag__table_valid_bytes(src->rows)));
        }
    }
    if (dag_last_region_result() != DAG_OK) dag_table_free(d), d = NULL;
    return d;
}

/* >>filter */
typedef struct dag__table_filtering { const dag_table *in; dag_table_filter_fn fn; void *user; } dag__table_filtering;
static bool dag__table_filter_part(dag__table_build *b, int64_t p, dag__table_builder *into) {
    const dag__table_filtering *f = (const dag__table_filtering *)b->op;
    int64_t n = f->in->part_rows[p], kept = 0;
    dag_table_view v;
    dag_table_column *cols = dag__table_view_new(f->in, p, &v);
    uint8_t *keep = (uint8_t *)dag__table_zalloc((size_t)n);
    int64_t *idx = (int64_t *)dag__table_alloc(sizeof(int64_t) * (size_t)n);
    bool ok = cols && keep && idx;
    if (ok) {
        f->fn(&v, keep, f->user);
        for (int64_t i = 0; i < n; i++)
            if (keep[i]) idx[kept++] = i;
        ok = dag__builder_append(into, &v, idx, kept);
    }
    if (!ok) into->failed = true;
    DAG_FREE(cols), DAG_FREE(keep), DAG_FREE(idx);
    return ok;
}
dag_table *dag_table_filter(dag_table *t, dag_table_filter_fn fn, void *user, int64_t repartition_rows) {
    dag__wait_spawned();
    if (!dag__table_usable(t, "dag_table_filter")) return NULL;
    if (!fn || repartition_rows < 0) {
        dag_log(DAG_LOG_ERROR, DAG_ERR_INVALID_ARGUMENT, "dag_table_filter: %s", !fn ? "no function" : "negative rows per partition");
        return NULL;
    }
    dag_table *d = dag__table_like(t, t->nparts, t->owner);
    int *types = d ? dag__table_types_of(d) : NULL;
    dag__table_filtering f = { t, fn, user };
    dag__table_build b = { d, NULL, dag__table_filter_part, types, &f, NULL, NULL };
    d = types ? dag__table_build_run(&b, "dag_table_filter") : (dag_table_free(d), NULL);
    DAG_FREE(types);
    if (d && repartition_rows > 0) {
        dag_table *r = dag_table_repartition(d, repartition_rows);
        dag_table_free(d);
        d = r;
    }
    return d;
}

typedef struct dag__table_where_arg { int col; dag_table_cmp op; dag_table_column value; } dag__table_where_arg;
static void dag__table_where_keep(const dag_table_view *in, uint8_t *keep, void *user) {
    const dag__table_where_arg *w = (const dag__table_where_arg *)user;
    const dag_table_column *c = &in->columns[w->col];
    for (int64_t i = 0; i < in->rows; i++) {
        if (!dag__table_bit(c->valid, i)) continue;   /* a missing operand: the row goes */
        int r = dag__table_cmp_rows(c, i, &w->value, 0);
        switch (w->op) {
        case DAG_TABLE_EQ: keep[i] = r == 0; break;
        case DAG_TABLE_NE: keep[i] = r != 0; break;
        case DAG_TABLE_LT: keep[i] = r < 0; break;
        case DAG_TABLE_LE: keep[i] = r <= 0; break;
        case DAG_TABLE_GT: keep[i] = r > 0; break;
        default: keep[i] = r >= 0; break;
        }
    }
}
static dag_table *dag__table_where(dag_table *t, const char *column, dag_table_cmp op, dag__table_where_arg *w, bool str,
                                   const char *who) {
    w->col = dag_table_column_index(t, column);
    w->op = op;
    if (!dag__table_usable(t, who) || w->col < 0 || op < DAG_TABLE_EQ || op > DAG_TABLE_GE ||
        (t->types[w->col] == DAG_TABLE_STR) != str) {
        dag_log(DAG_LOG_ERROR, DAG_ERR_INVALID_ARGUMENT, "%s: needs a %s column (%s) and a comparison", who,
                str ? "string" : "number", column ? column : "NULL");
        return NULL;
    }
    return dag_table_filter(t, dag__table_where_keep, w, 0);
}
dag_table *dag_table_where(dag_table *t, const char *column, dag_table_cmp op, double value) {
    dag__table_where_arg w;
    memset(&w, 0, sizeof w);
    /* a float column compares with the value as a float (NumPy's NEP 50, DuckDB): f32 == 0.1 holds for 0.1f */
    int c = t ? dag_table_column_index(t, column) : -1;
    float single = (float)value;
    bool f32 = c >= 0 && dag_table_column_type(t, c) == DAG_TABLE_F32;
    w.value.type = f32 ? DAG_TABLE_F32 : DAG_TABLE_F64;
    w.value.values = f32 ? (void *)&single : (void *)&value;
    return dag__table_where(t, column, op, &w, false, "dag_table_where");
}
dag_table *dag_table_where_str(dag_table *t, const char *column, dag_table_cmp op, const char *value) {
    dag__table_where_arg w;
    int64_t off[2] = { 0, value ? (int64_t)strlen(value) : 0 };
    memset(&w, 0, sizeof w);
    w.value.type = DAG_TABLE_STR;
    w.value.values = off;
    w.value.chars = (char *)(uintptr_t)value;
    if (!value) dag_log(DAG_LOG_ERROR, DAG_ERR_INVALID_ARGUMENT, "dag_table_where_str: no value (NULL) to compare with");
    return value ? dag__table_where(t, column, op, &w, true, "dag_table_where_str") : NULL;
}

/* >>shuffle: each input unit deals rows (its partition, or what it made of
   it) into a piece per bucket, by a job on its owner; then each bucket, on
   its owner, absorbs its pieces in the units' order (a chain: the pieces
   move there) and finishes into a partition of the result. */
typedef struct dag__table_shuffle dag__table_shuffle;
struct dag__table_shuffle {
    const char *who;
    int64_t inputs;
    const int *in_owner;
    dag_table *out;              /* buckets: out's partitions, on out's owners */
    /* the rows unit u deals, their piece types, and each row's bucket, in memory *scratch holds */
    bool (*deal)(dag__table_shuffle *s, int64_t u, dag_table_view *rows, const int **types, int64_t **bucket, void **scratch);
    void (*release)(dag__table_shuffle *s, void *scratch);
    void (*absorb)(dag__table_shuffle *s, int64_t q, int64_t u, const dag_table_view *piece);
    bool (*finish)(dag__table_shuffle *s, int64_t q, dag__table_builder *out);
    int64_t **piece;             /* inputs x buckets, on the inputs' owners */
    int64_t *incoming;           /* the rows each bucket receives, all pieces together (every rank) */
    dag__table_builder *stash;   /* each bucket's partition */
    void *op;
};

static void dag__shuffle_deal_unit(dag__table_job *job, int64_t u, int64_t *meta) {
    dag__table_shuffle *s = (dag__table_shuffle *)job->op;
    int64_t q_count = s->out->nparts, *bucket = NULL;
    dag_table_view v;
    const int *types = NULL;
    void *scratch = NULL;
    memset(&v, 0, sizeof v);
    bool ok = s->deal(s, u, &v, &types, &bucket, &scratch);
    int64_t *start = NULL, *idx = NULL;
    if (ok && !bucket) {   /* no buckets: every row to each */
        for (int64_t q = 0; q < q_count && ok; q++)
            ok = (s->piece[u * q_count + q] = dag__piece_make(&v, types, NULL, v.rows, &meta[q])) != NULL, meta[q_count + q] = v.rows;
    } else if (ok) {   /* the rows by bucket, in their order (a counting sort) */
        start = (int64_t *)dag__table_zalloc(sizeof(int64_t) * (size_t)(q_count + 1));
        idx = (int64_t *)dag__table_alloc(sizeof(int64_t) * (size_t)v.rows);
        ok = start && idx;
        for (int64_t i = 0; ok && i < v.rows; i++) start[bucket[i] + 1]++;
        for (int64_t q = 0; ok && q < q_count; q++) start[q + 1] += start[q];
        for (int64_t i = 0; ok && i < v.rows; i++) idx[start[bucket[i]]++] = i;
        for (int64_t q = q_count; ok && q > 0; q--) start[q] = start[q - 1];
        if (ok) start[0] = 0;
        for (int64_t q = 0; q < q_count && ok; q++) {
            meta[q_count + q] = start[q + 1] - start[q];
            ok = (s->piece[u * q_count + q] = dag__piece_make(&v, types, idx + start[q], start[q + 1] - start[q], &meta[q])) != NULL;
        }
    }
    if (!ok && !dag_cancelled()) dag__table_job_fail_memory(job, u);
    if (s->release) s->release(s, scratch);
    DAG_FREE(start), DAG_FREE(idx), DAG_FREE(bucket);
}
static void dag__shuffle_absorb(dag__table_job *job, int64_t q, int64_t u, const void *piece) {
    dag__table_shuffle *s = (dag__table_shuffle *)job->op;
    dag_table_column *cols = (dag_table_column *)dag__table_alloc(sizeof(dag_table_column) * (size_t)(((const int64_t *)piece)[1] + 1));
    dag_table_view v;
    if (!cols) {
        s->stash[q].failed = true;
        return;
    }
    dag__piece_view((const int64_t *)piece, &v, cols);
    s->absorb(s, q, u, &v);
    DAG_FREE(cols);
}
static void dag__shuffle_finish_unit(dag__table_job *job, int64_t q, int64_t *meta) {
    dag__table_shuffle *s = (dag__table_shuffle *)job->op;
    if (s->stash[q].failed || (s->finish && !s->finish(s, q, &s->stash[q])) || s->stash[q].failed) {
        if (!dag_cancelled()) dag__table_job_fail_memory(job, q);
        return;
    }
    dag__builder_meta(&s->stash[q], meta);
}
/* the partitions of a bucket: the builders absorb appends to */
/* piece into builder b, which gets room for all of bucket q's rows at once (appends: sort, repartition, held rows) */
static bool dag__shuffle_keep(dag__table_shuffle *s, int64_t q, dag__table_builder *b, const dag_table_view *piece) {
    return (b->rows || dag__builder_reserve(b, s->incoming[q])) && dag__builder_append(b, piece, NULL, piece->rows);
}
static void dag__shuffle_append(dag__table_shuffle *s, int64_t q, int64_t u, const dag_table_view *piece) {
    (void)u;
    if (!dag__shuffle_keep(s, q, &s->stash[q], piece)) s->stash[q].failed = true;
}

/* How many buckets a shuffle of `inputs` partitions deals into: as many, but
   it holds a piece per input and bucket (a buffer, a handle, two words of
   meta on every rank), so thousands of tiny partitions would make millions
   (a groupby of 4,200 one-row partitions took 2.9 GB, then failed on the
   limit of registered spans): at most 2^18 pieces, and never fewer buckets
   than ranks. */
static int64_t dag__table_shuffle_buckets(int64_t inputs) {
    int64_t most = ((int64_t)1 << 18) / (inputs > 0 ? inputs : 1), ranks = dag_num_ranks();
    if (most < ranks) most = ranks;
    return inputs < most ? inputs : most;
}

/* Runs s: s->out, or NULL (freed) on failure. */
static dag_table *dag__shuffle_run(dag__table_shuffle *s) {
    dag_table *t = s->out;
    int64_t q_count = t->nparts, n = s->inputs * q_count;
    int *types = dag__table_types_of(t);
    s->piece = (int64_t **)dag__table_zalloc(sizeof(int64_t *) * (size_t)n);
    s->stash = (dag__table_builder *)dag__table_zalloc(sizeof(dag__table_builder) * (size_t)q_count);
    s->incoming = (int64_t *)dag__table_zalloc(sizeof(int64_t) * (size_t)q_count);
    dag_data *h = (dag_data *)dag__table_zalloc(sizeof(dag_data) * (size_t)n);
    dag__table_job deal, merge;
    memset(&deal, 0, sizeof deal), memset(&merge, 0, sizeof merge);
    bool ok = types && s->piece && s->incoming && s->stash && h;
    for (int64_t q = 0; ok && q < q_count; q++) ok = dag__builder_init(&s->stash[q], t->ncols, types) && dag__builder_reserve(&s->stash[q], 1);
    /* the deal's meta per input: each piece's bytes, then its rows */
    ok = ok && dag__table_job_of(&deal, s->who, s->inputs, 2 * q_count, s->in_owner, dag__shuffle_deal_unit, s) == DAG_OK;
    for (int64_t i = 0; ok && i < n; i++) {
        int64_t u = i / q_count, q = i % q_count;
        s->incoming[q] += deal.meta[u * 2 * q_count + q_count + q];
        ok = (h[i] = dag__table_register(s->in_owner[u], s->piece[i], deal.meta[u * 2 * q_count + q] / 8, 8)).id != 0;
    }
    if (ok) {
        merge.who = s->who, merge.units = q_count, merge.k = dag__builder_meta_words(t->ncols), merge.owner = t->owner;
        merge.run = dag__shuffle_finish_unit, merge.absorb = dag__shuffle_absorb;
        merge.sources = s->inputs, merge.pieces = h, merge.op = s;
        ok = dag__table_run(&merge) == DAG_OK && dag__table_adopt(t, merge.meta, s->stash, NULL, NULL);
    }
    for (int64_t i = 0; h && i < n; i++)
        if (h[i].id) dag_data_unregister(h[i]);
    for (int64_t i = 0; s->piece && i < n; i++) DAG_FREE(s->piece[i]);
    for (int64_t q = 0; s->stash && q < q_count; q++) dag__builder_free(&s->stash[q]);
    DAG_FREE(types), DAG_FREE(s->piece), DAG_FREE(s->incoming), DAG_FREE(s->stash), DAG_FREE(h), DAG_FREE(deal.meta), DAG_FREE(merge.meta);
    if (!ok) dag_table_free(t), t = NULL;
    return t;
}
/* unit u's whole partition of t, as rows to deal */
static dag_table_column *dag__table_deal_view(const dag_table *t, int64_t u, dag_table_view *v, int64_t **bucket) {
    dag_table_column *cols = dag__table_view_new(t, u, v);
    *bucket = (int64_t *)dag__table_alloc(sizeof(int64_t) * (size_t)(t->part_rows[u] + 1));
    if (!*bucket) DAG_FREE(cols), cols = NULL;
    return cols;
}
static void dag__table_release_cols(dag__table_shuffle *s, void *scratch) {
    (void)s;
    DAG_FREE(scratch);
}
/* A shuffle of in's partitions into out's partitions: by default a unit's
   scratch is freed and a bucket appends its pieces; the caller sets deal,
   and finish or others where it needs them. */
static dag__table_shuffle dag__table_shuffle_of(const char *who, const dag_table *in, dag_table *out, void *op) {
    dag__table_shuffle s;
    memset(&s, 0, sizeof s);
    s.who = who, s.inputs = in->nparts, s.in_owner = in->owner, s.out = out, s.op = op;
    s.release = dag__table_release_cols;
    s.absorb = dag__shuffle_append;
    return s;
}

/* >>repartition: rows go to bucket (row number) / rows */
typedef struct dag__table_dealing { const dag_table *in; int *types; int64_t rows; } dag__table_dealing;
static bool dag__table_deal_range(dag__table_shuffle *s, int64_t u, dag_table_view *v, const int **types, int64_t **bucket,
                                  void **scratch) {
    const dag__table_dealing *d = (const dag__table_dealing *)s->op;
    if (!(*scratch = dag__table_deal_view(d->in, u, v, bucket))) return false;
    for (int64_t i = 0; i < v->rows; i++) (*bucket)[i] = (v->first_row + i) / d->rows;
    *types = d->types;
    return true;
}
dag_table *dag_table_repartition(dag_table *t, int64_t rows) {
    dag__wait_spawned();
    if (!dag__table_usable(t, "dag_table_repartition")) return NULL;
    if (rows <= 0) {
        dag_log(DAG_LOG_ERROR, DAG_ERR_INVALID_ARGUMENT, "dag_table_repartition: %lld rows per partition", (long long)rows);
        return NULL;
    }
    dag__mpi_agree_numbers("dag_table_repartition (rows)", &rows, 1);
    dag_table *d = dag__table_like(t, dag__table_parts_for(t->rows, rows), NULL);
    dag__table_dealing op = { t, dag__table_types_of(t), rows };
    dag__table_shuffle s = dag__table_shuffle_of("dag_table_repartition", t, d, &op);
    s.deal = dag__table_deal_range;
    d = d && op.types ? dag__shuffle_run(&s) : (dag_table_free(d), NULL);
    DAG_FREE(op.types);
    return d;
}

/* >>sort: sampled splitters deal the rows into ranges (missing rows to the
   last), each range then sorted, stably, where it lands. */
enum { DAG__TABLE_SAMPLES = 64 };
/* A double that orders as the values do (not strictly: ties where it
   rounds), for splitters: strings by their first six bytes. */
static double dag__table_sort_key(const dag_table_column *c, int64_t i, int desc) {
    double k;
    if (c->type == DAG_TABLE_STR) {
        int64_t n;
        const unsigned char *s = (const unsigned char *)dag__table_str(c, i, &n);
        k = 0;
        for (int64_t j = 0; j < 6; j++) k = k * 256 + (j < n ? s[j] : 0);
    } else {
        k = dag__table_get_real(c, i);
        if (k != k) k = INFINITY;
    }
    return desc ? -k : k;
}
typedef struct dag__table_sorting {
    const dag_table *in;
    int col, desc;               /* the first sort column (its splitters) */
    int ncols, *cols, *descs;    /* every sort column, and its direction */
    int *types;
    double *split;               /* buckets - 1 splitters */
} dag__table_sorting;
static void dag__table_sample_unit(dag__table_job *job, int64_t u, int64_t *meta) {
    const dag__table_sorting *o = (const dag__table_sorting *)job->op;
    const dag__table_chunk *k = o->in->chunk[u * o->in->ncols + o->col];
    dag_table_column c = { NULL, o->in->types[o->col], k->values, k->chars, k->valid };
    int64_t n = 0;
    for (int64_t s = 0; s < DAG__TABLE_SAMPLES && k->rows; s++) {
        int64_t i = (2 * s + 1) * k->rows / (2 * DAG__TABLE_SAMPLES);
        if (!dag__table_bit(k->valid, i)) continue;
        double key = dag__table_sort_key(&c, i, o->desc);
        memcpy(&meta[1 + n++], &key, sizeof key);
    }
    meta[0] = n;
}
static int dag__table_cmp_doubles(const void *a, const void *b) { return dag__table_cmp_real(*(const double *)a, *(const double *)b); }
static bool dag__table_deal_sorted(dag__table_shuffle *s, int64_t u, dag_table_view *v, const int **types, int64_t **bucket,
                                   void **scratch) {
    const dag__table_sorting *o = (const dag__table_sorting *)s->op;
    int64_t last = s->out->nparts - 1;
    if (!(*scratch = dag__table_deal_view(o->in, u, v, bucket))) return false;
    const dag_table_column *c = &v->columns[o->col];
    for (int64_t i = 0; i < v->rows; i++) {
        if (!dag__table_bit(c->valid, i)) {
            (*bucket)[i] = last;
            continue;
        }
        double key = dag__table_sort_key(c, i, o->desc);
        int64_t lo = 0, hi = last;   /* the splitters below key */
        while (lo < hi) {
            int64_t mid = (lo + hi) / 2;
            if (o->split[mid] < key) lo = mid + 1;
            else hi = mid;
        }
        (*bucket)[i] = lo;
    }
    *types = o->types;
    return true;
}
/* The order of rows i and j by the sort columns cols[0..n) (each descending where desc[k]): missing last in each. */
static int dag__table_sort_cmp(const dag_table_column *t, const int *cols, const int *desc, int n, int64_t i, int64_t j) {
    for (int k = 0; k < n; k++) {
        const dag_table_column *c = &t[cols[k]];
        bool pi = dag__table_bit(c->valid, i), pj = dag__table_bit(c->valid, j);
        int r = pi != pj ? (pi ? -1 : 1) : pi ? dag__table_cmp_rows(c, i, c, j) * (desc[k] ? -1 : 1) : 0;
        if (r) return r;
    }
    return 0;
}
/* Row order of rows 0..n of t by the sort columns, stable: a merge sort over row numbers. */
static bool dag__table_order(const dag_table_column *t, const int *cols, const int *desc, int ncols, int64_t *idx, int64_t n) {
    int64_t *tmp = (int64_t *)dag__table_alloc(sizeof(int64_t) * (size_t)(n + 1));
    if (!tmp) return false;
    for (int64_t i = 0; i < n; i++) idx[i] = i;
    for (int64_t width = 1; width < n; width *= 2) {
        for (int64_t lo = 0; lo < n; lo += 2 * width) {
            int64_t mid = lo + width < n ? lo + width : n, hi = lo + 2 * width < n ? lo + 2 * width : n;
            int64_t a = lo, b = mid, k = lo;
            while (a < mid && b < hi)   /* ties keep the earlier row first */
                tmp[k++] = dag__table_sort_cmp(t, cols, desc, ncols, idx[b], idx[a]) < 0 ? idx[b++] : idx[a++];
            while (a < mid) tmp[k++] = idx[a++];
            while (b < hi) tmp[k++] = idx[b++];
        }
        memcpy(idx, tmp, sizeof(int64_t) * (size_t)n);
    }
    DAG_FREE(tmp);
    return true;
}
static bool dag__table_finish_sorted(dag__table_shuffle *s, int64_t q, dag__table_builder *b) {
    const dag__table_sorting *o = (const dag__table_sorting *)s->op;
    int64_t *idx = (int64_t *)dag__table_alloc(sizeof(int64_t) * (size_t)b->rows);
    dag__table_builder sorted;
    dag_table_view v = { b->rows, b->ncols, b->cols, q, 0 };
    bool ok = idx && dag__table_order(b->cols, o->cols, o->descs, o->ncols, idx, b->rows) && dag__builder_init(&sorted, b->ncols, b->types) &&
              dag__builder_append(&sorted, &v, idx, b->rows);
    DAG_FREE(idx);
    if (!ok) return false;
    dag__builder_free(b);
    *b = sorted;
    return true;
}
dag_table *dag_table_sort(dag_table *t, const char *column, int descending) { return dag_table_sort_by(t, &column, &descending, 1); }
dag_table *dag_table_sort_by(dag_table *t, const char *const *columns, const int *descending, int num_columns) {
    dag__wait_spawned();
    const char *who = "dag_table_sort";
    if (!dag__table_usable(t, who)) return NULL;
    size_t m = num_columns > 0 ? (size_t)num_columns : 1;
    dag__table_sorting o = { t, 0, 0, num_columns, (int *)dag__table_alloc(sizeof(int) * m), (int *)dag__table_zalloc(sizeof(int) * m),
                             dag__table_types_of(t), NULL };
    if (num_columns <= 0 || !columns) dag_log(DAG_LOG_ERROR, DAG_ERR_INVALID_ARGUMENT, "%s: no columns to sort by", who);
    if (num_columns <= 0 || !columns || !o.cols || !o.descs || !dag__table_columns_named(t, columns, num_columns, o.cols, who)) {
        DAG_FREE(o.cols), DAG_FREE(o.descs), DAG_FREE(o.types);
        return NULL;
    }
    for (int k = 0; descending && k < num_columns; k++) o.descs[k] = descending[k] != 0;
    o.col = o.cols[0], o.desc = o.descs[0];
    dag__table_job sample;
    memset(&sample, 0, sizeof sample);
    dag_table *d = NULL;
    int64_t q_count = dag__table_shuffle_buckets(t->nparts), n = 0;
    double *keys = NULL;
    if (!o.types || dag__table_job_of(&sample, "dag_table_sort", t->nparts, 1 + DAG__TABLE_SAMPLES, t->owner,
                                      dag__table_sample_unit, &o) != DAG_OK)
        goto done;
    keys = (double *)dag__table_alloc(sizeof(double) * (size_t)(t->nparts * DAG__TABLE_SAMPLES));
    o.split = (double *)dag__table_alloc(sizeof(double) * (size_t)q_count);
    if (!keys || !o.split) goto done;
    for (int64_t u = 0; u < t->nparts; u++)   /* every rank: the same samples, so the same splitters */
        for (int64_t i = 0; i < sample.meta[u * (1 + DAG__TABLE_SAMPLES)]; i++)
            memcpy(&keys[n++], &sample.meta[u * (1 + DAG__TABLE_SAMPLES) + 1 + i], sizeof(double));
    qsort(keys, (size_t)n, sizeof(double), dag__table_cmp_doubles);
    for (int64_t q = 0; q + 1 < q_count; q++) o.split[q] = n ? keys[(q + 1) * n / q_count] : 0;
    d = dag__table_like(t, q_count, NULL);
    dag__table_shuffle s = dag__table_shuffle_of("dag_table_sort", t, d, &o);
    s.deal = dag__table_deal_sorted;
    s.finish = dag__table_finish_sorted;
    if (d) d = dag__shuffle_run(&s);
done:
    DAG_FREE(o.types), DAG_FREE(o.split), DAG_FREE(keys), DAG_FREE(sample.meta), DAG_FREE(o.cols), DAG_FREE(o.descs);
    return d;
}

/* >>keys: hashing and comparing rows of key columns, the same on every
   rank. Integers of either width hash and compare as int64, floats as
   double (-0 as 0, every NaN alike), strings as bytes; a missing key hashes
   as itself and equals only a missing one (a join never probes with one).
   Rows are hashed a column at a time, as the hot loops of groupby and join
   want them. */
static uint64_t dag__table_mix(uint64_t x) {
    x ^= x >> 30; x *= UINT64_C(0xbf58476d1ce4e5b9);
    x ^= x >> 27; x *= UINT64_C(0x94d049bb133111eb);
    return x ^ (x >> 31);
}
/* the n < 8 bytes at s as one word, the same word for the same bytes (two
   overlapping 4-byte loads, or the first, middle and last byte) */
static uint64_t dag__table_short_word(const char *s, int64_t n) {
    uint32_t a, b;
    if (n >= 4) {
        memcpy(&a, s, 4), memcpy(&b, s + n - 4, 4);
        return (uint64_t)a << 32 | b;
    }
    if (n <= 0) return 0;
    return (uint64_t)(unsigned char)s[0] << 16 | (uint64_t)(unsigned char)s[n / 2] << 8 | (unsigned char)s[n - 1];
}
static uint64_t dag__table_hash_bytes(const char *s, int64_t n) {
    uint64_t h = UINT64_C(0xcbf29ce484222325) ^ (uint64_t)n, w;
    for (; n >= 8; s += 8, n -= 8) {
        memcpy(&w, s, 8);
        h = (h ^ w) * UINT64_C(0x9e3779b97f4a7c15);
        h ^= h >> 29;
    }
    return (h ^ dag__table_short_word(s, n)) * UINT64_C(0x9e3779b97f4a7c15);
}
/* a present value's hash word (integers and floats as their own bits: the mix of the row's hash spreads them) */
static uint64_t dag__table_hash_real(double d) {
    uint64_t bits;
    if (d == 0) d = 0;
    if (d != d) d = NAN;
    memcpy(&bits, &d, sizeof bits);
    return bits ^ UINT64_C(0x5851f42d4c957f2d);
}
/* is every one of n values present? */
static bool dag__table_all_valid(const uint8_t *v, int64_t n) {
    for (int64_t b = 0; b < n / 8; b++)
        if (v[b] != 0xff) return false;
    return n % 8 == 0 || (v[n / 8] | (uint8_t)(0xff << (n % 8))) == 0xff;
}
/* The hash of one integer key: a bijection of its value (the mix is one), so two such hashes are equal only for equal
   keys, unless one is a missing key's (which a key of -1 shares). */
static uint64_t dag__table_missing_hash(void) { return dag__table_mix(UINT64_C(0x9e3779b97f4a7c15) - 1); }
/* the hash of the keys of each row i < n into h[i], a column at a time (the type's loop) */
static void dag__table_hash_rows(const dag_table_column *cols, const int *keys, int nkeys, int64_t n, uint64_t *h) {
    for (int64_t i = 0; i < n; i++) h[i] = 0;
    for (int k = 0; k < nkeys; k++) {
        const dag_table_column *c = &cols[keys[k]];
        const int32_t *i32 = (const int32_t *)c->values;
        const int64_t *i64 = (const int64_t *)c->values;
        bool all = dag__table_all_valid(c->valid, n);
        uint64_t salt = UINT64_C(0x9e3779b97f4a7c15) * (uint64_t)(k + 1), w = 0;
        for (int64_t i = 0; i < n; i++) {
            if (!all && !dag__table_bit(c->valid, i)) {
                h[i] = dag__table_mix(h[i] ^ (salt - 1));
                continue;
            }
            switch (c->type) {
            case DAG_TABLE_I32: w = (uint64_t)(int64_t)i32[i]; break;
            case DAG_TABLE_I64: w = (uint64_t)i64[i]; break;
            case DAG_TABLE_STR: w = dag__table_hash_bytes(c->chars + i64[i], i64[i + 1] - i64[i]); break;
            default: w = dag__table_hash_real(dag__table_get_real(c, i)); break;
            }
            h[i] = dag__table_mix(h[i] ^ (w + salt));
        }
    }
}
static bool dag__table_bytes_same(const char *a, const char *b, int64_t n) {
    uint64_t x, y;
    for (; n >= 8; a += 8, b += 8, n -= 8) {
        memcpy(&x, a, 8), memcpy(&y, b, 8);
        if (x != y) return false;
    }
    return dag__table_short_word(a, n) == dag__table_short_word(b, n);
}
static bool dag__table_key_same(const dag_table_column *a, int64_t i, const dag_table_column *b, int64_t j) {
    bool va = dag__table_bit(a->valid, i), vb = dag__table_bit(b->valid, j);
    if (!va || !vb) return va == vb;
    if (a->type == b->type) {
        switch (a->type) {
        case DAG_TABLE_I32: return ((const int32_t *)a->values)[i] == ((const int32_t *)b->values)[j];
        case DAG_TABLE_I64: return ((const int64_t *)a->values)[i] == ((const int64_t *)b->values)[j];
        case DAG_TABLE_STR: {
            int64_t na, nb;
            const char *sa = dag__table_str(a, i, &na), *sb = dag__table_str(b, j, &nb);
            return na == nb && dag__table_bytes_same(sa, sb, na);
        }
        default: break;
        }
    }
    if (dag__table_is_int(a->type)) return dag__table_get_int(a, i) == dag__table_get_int(b, j);
    double x = dag__table_get_real(a, i), y = dag__table_get_real(b, j);
    return x == y || (x != x && y != y);
}
/* Key columns, and the row of each item (a row to hash and probe, a group): row[i] (row NULL: row i). */
typedef struct dag__table_keyset { const dag_table_column *cols; const int *keys; const int64_t *row; } dag__table_keyset;
static int64_t dag__table_row_of(const dag__table_keyset *k, int64_t i) { return k->row ? k->row[i] : i; }
static bool dag__table_rows_same(const dag__table_keyset *a, int64_t i, const dag__table_keyset *b, int64_t j, int nkeys) {
    for (int k = 0; k < nkeys; k++)
        if (!dag__table_key_same(&a->cols[a->keys[k]], i, &b->cols[b->keys[k]], j)) return false;
    return true;
}
static bool dag__table_any_missing(const dag_table_column *cols, const int *keys, int nkeys, int64_t i) {
    for (int k = 0; k < nkeys; k++)
        if (!dag__table_bit(cols[keys[k]].valid, i)) return true;
    return false;
}
/* the bucket of a hash (its high bits: hash tables index by the low ones) */
static int64_t dag__table_bucket(uint64_t h, int64_t buckets) { return (int64_t)(((h >> 32) * (uint64_t)buckets) >> 32); }

/* >>hash table of groups: open addressing, each slot a group's hash and
   number + 1 (0: empty), so that a probe reads keys only on a full match */
typedef struct dag__table_slot { uint64_t hash; int64_t group; } dag__table_slot;
typedef struct dag__table_groups { dag__table_slot *slot; int64_t cap, count; } dag__table_groups;
static void dag__groups_free(dag__table_groups *g) { DAG_FREE(g->slot), memset(g, 0, sizeof *g); }
static bool dag__groups_grow(dag__table_groups *g, int64_t need) {
    if (2 * need <= g->cap) return true;
    int64_t cap = g->cap ? g->cap : 64;
    while (cap < 2 * need) cap *= 2;
    dag__table_slot *slot = (dag__table_slot *)dag__table_zalloc(sizeof(dag__table_slot) * (size_t)cap);
    if (!slot) return false;
    for (int64_t s = 0; s < g->cap; s++) {
        if (!g->slot[s].group) continue;
        int64_t t = (int64_t)(g->slot[s].hash & (uint64_t)(cap - 1));
        while (slot[t].group) t = (t + 1) & (cap - 1);
        slot[t] = g->slot[s];
    }
    DAG_FREE(g->slot);
    g->slot = slot, g->cap = cap;
    return true;
}
/* The group of each item i < n of a (hashes h) into gid[i]: one whose keys
   are b's item g, or one this call added (first: the groups before the
   call; its keys a's item added[g - first]), or, without insert, -1.
   skip_missing: an item with a missing key has none. It stops before a
   group past `limit` (< 0: none). Returns the items done (n: all), -1
   without memory. */
static int64_t dag__groups_find(dag__table_groups *g, const uint64_t *h, int64_t n, const dag__table_keyset *a, const dag__table_keyset *b,
                                int nkeys, bool insert, bool skip_missing, int64_t limit, int64_t *gid, int64_t *added) {
    int64_t first = g->count, fit = limit >= 0 && limit < n ? limit : n;   /* room for all the items' groups, up to the limit */
    uint64_t missing = dag__table_missing_hash();
    bool exact = nkeys == 1 && dag__table_is_int(a->cols[a->keys[0]].type) && dag__table_is_int(b->cols[b->keys[0]].type);
    if (insert && !dag__groups_grow(g, g->count + fit)) return -1;
    for (int64_t i = 0; i < n; i++) {
        gid[i] = -1;
        int64_t row = dag__table_row_of(a, i);
        if ((skip_missing && dag__table_any_missing(a->cols, a->keys, nkeys, row)) || (!insert && !g->cap)) continue;
        if (insert && 2 * (g->count + 1) > g->cap && !dag__groups_grow(g, 2 * g->count + 1)) return -1;
        int64_t mask = g->cap - 1, s = (int64_t)(h[i] & (uint64_t)mask);
        for (; g->slot[s].group; s = (s + 1) & mask) {
            int64_t e = g->slot[s].group - 1;
            if (g->slot[s].hash != h[i]) continue;
            bool fresh = insert && e >= first;   /* (only an inserting call adds groups) */
            if ((exact && h[i] != missing) || (fresh ? dag__table_rows_same(a, row, a, dag__table_row_of(a, added[e - first]), nkeys)
                                                     : dag__table_rows_same(a, row, b, dag__table_row_of(b, e), nkeys))) {
                gid[i] = e;
                break;
            }
        }
        if (gid[i] >= 0 || !insert) continue;
        if (limit >= 0 && g->count >= limit) return i;
        g->slot[s].hash = h[i], g->slot[s].group = g->count + 1;
        added[g->count - first] = i;
        gid[i] = g->count++;
    }
    return n;
}
/* rows by group: order[start[g]..start[g + 1]) are group g's rows, in order */
static bool dag__table_rows_by_group(const int64_t *gid, int64_t n, int64_t groups, int64_t **start, int64_t **order) {
    *start = (int64_t *)dag__table_zalloc(sizeof(int64_t) * (size_t)(groups + 2));
    *order = (int64_t *)dag__table_alloc(sizeof(int64_t) * (size_t)(n + 1));
    if (!*start || !*order) return false;
    for (int64_t i = 0; i < n; i++) (*start)[gid[i] + 2]++;
    for (int64_t e = 0; e < groups; e++) (*start)[e + 2] += (*start)[e + 1];
    for (int64_t i = 0; i < n; i++) (*order)[(*start)[gid[i] + 1]++] = i;
    return true;
}

/* >>aggregates: a state per group and aggregate, merged across partitions;
   the holistic ones (median, the n-th largest or smallest, min and max of
   strings) see all of a group's values at once, after a shuffle of rows */
typedef struct dag__table_state {
    int64_t n;                                       /* values seen (COUNT_ALL: rows; CORR: pairs) */
    union {
        union { int64_t i; double d; } v;            /* SUM, MEAN of reals: the sum; MIN, MAX: the value so far (the column's kind) */
        struct { uint64_t lo; int64_t hi; } s;       /* SUM, MEAN of integers: the sum in 128 bits, which no int64 column overflows */
        struct { double mean, m2; } w;               /* VAR, SD: the running mean and squares (Welford) */
        struct { double mx, my, m2x, m2y, cxy; } c;  /* CORR: the means, squares and co-moment */
        unsigned char user[DAG_TABLE_USER_STATE];
    } u;
} dag__table_state;
typedef struct dag__table_agg {
    dag_table_agg op;
    int col, col2, type;             /* col2: CORR's second column */
    int64_t nth;                     /* LARGEST, SMALLEST (and MIN, MAX of strings: 1) */
    int64_t off;                     /* its state's place in a group's states */
    const dag_table_user_agg *user;
} dag__table_agg;
/* The bytes of a's state it uses: a group's states are packed, each this many (a count 8, a sum 16...). */
static int64_t dag__table_state_size(const dag__table_agg *a) {
    dag__table_state s;
    size_t head = offsetof(dag__table_state, u);
    switch (a->op) {
    case DAG_TABLE_COUNT: case DAG_TABLE_COUNT_ALL: return (int64_t)head;
    case DAG_TABLE_VAR: case DAG_TABLE_SD: return (int64_t)(head + sizeof s.u.w);
    case DAG_TABLE_CORR: return (int64_t)(head + sizeof s.u.c);
    case DAG_TABLE_SUM: case DAG_TABLE_MEAN: return (int64_t)(head + sizeof s.u.s);   /* a real's sum fits too */
    case DAG_TABLE_USER: return (int64_t)sizeof s;
    default: return (int64_t)(head + sizeof s.u.v);
    }
}
/* the aggregates' places in a group's states (off); the bytes of a group's states */
static int64_t dag__table_pack_states(dag__table_agg *aggs, int n) {
    int64_t at = 0;
    for (int a = 0; a < n; a++) aggs[a].off = at, at += dag__table_state_size(&aggs[a]);
    return at;
}
/* aggregate a's state of group e in states of `stride` bytes a group */
static dag__table_state *dag__table_state_of(char *states, int64_t stride, int64_t e, const dag__table_agg *a) {
    return (dag__table_state *)(void *)(states + e * stride + a->off);
}

static bool dag__table_is_number(int type) { return type >= DAG_TABLE_I32 && type <= DAG_TABLE_F64; }
static bool dag__table_holistic(const dag__table_agg *a) {
    return a->op == DAG_TABLE_MEDIAN || a->op == DAG_TABLE_LARGEST || a->op == DAG_TABLE_SMALLEST ||
           ((a->op == DAG_TABLE_MIN || a->op == DAG_TABLE_MAX) && a->type == DAG_TABLE_STR);
}
/* does the holistic aggregate a pick a row (its value the result), as the n-th largest does? */
static bool dag__table_picks_row(const dag__table_agg *a) { return dag__table_holistic(a) && a->op != DAG_TABLE_MEDIAN; }
static const char *dag__table_agg_problem(const dag_table *t, const dag_table_aggregate *g, int col, int col2) {
    int type = col >= 0 ? t->types[col] : 0;
    bool any_type = g->op == DAG_TABLE_COUNT || g->op == DAG_TABLE_MIN || g->op == DAG_TABLE_MAX || g->op == DAG_TABLE_LARGEST ||
                    g->op == DAG_TABLE_SMALLEST;
    if (g->op < DAG_TABLE_SUM || g->op > DAG_TABLE_SMALLEST) return "an unknown aggregate";
    if (g->op != DAG_TABLE_COUNT_ALL && col < 0) return "no such column";
    if (g->op != DAG_TABLE_COUNT_ALL && !any_type && type == DAG_TABLE_STR) return "a string column (this aggregate takes numbers)";
    if (g->op == DAG_TABLE_CORR && (col2 < 0 || !dag__table_is_number(t->types[col2]))) return "no second column of numbers (column2)";
    if ((g->op == DAG_TABLE_LARGEST || g->op == DAG_TABLE_SMALLEST) && g->n < 0) return "a negative n";
    if (g->op == DAG_TABLE_USER && (!g->user || !g->user->init || !g->user->step || !g->user->merge || !g->user->finish ||
                                    g->user->state_size > DAG_TABLE_USER_STATE))
        return "a user aggregate without its four functions, or a state over DAG_TABLE_USER_STATE bytes";
    return NULL;
}
static bool dag__table_resolve_aggs(const dag_table *t, const dag_table_aggregate *aggs, int n, dag__table_agg *out, const char *who) {
    for (int a = 0; a < n; a++) {
        const dag_table_aggregate *g = &aggs[a];
        int col = g->op == DAG_TABLE_COUNT_ALL ? -1 : dag_table_column_index(t, g->column);
        int col2 = g->op == DAG_TABLE_CORR ? dag_table_column_index(t, g->column2) : -1;
        const char *why = dag__table_agg_problem(t, g, col, col2);
        if (why) {
            dag_log(DAG_LOG_ERROR, DAG_ERR_INVALID_ARGUMENT, "%s: aggregate %d (%s): %s", who, a, g->column ? g->column : "*", why);
            return false;
        }
        out[a].op = g->op, out[a].col = col, out[a].col2 = col2, out[a].type = col >= 0 ? t->types[col] : 0, out[a].user = g->user;
        out[a].off = 0;
        out[a].nth = g->op == DAG_TABLE_LARGEST || g->op == DAG_TABLE_SMALLEST ? (g->n > 0 ? g->n : 1) : 1;
    }
    return true;
}
static void dag__table_state_init(dag__table_state *s, const dag__table_agg *a) {
    memset(s, 0, (size_t)dag__table_state_size(a));
    if (a->op == DAG_TABLE_USER) a->user->init(s->u.user);
}
/* NaN is the largest value for min and max */
static bool dag__table_real_above(double x, double y) { return dag__table_cmp_real(x, y) > 0; }
/* (hi, lo) += (xhi, xlo), 128-bit two's complement: an int64 sign-extended is (v < 0 ? -1 : 0, v) */
static void dag__table_sum128_add(uint64_t *lo, int64_t *hi, uint64_t xlo, int64_t xhi) {
    uint64_t before = *lo;
    *lo += xlo;
    *hi = (int64_t)((uint64_t)*hi + (uint64_t)xhi + (*lo < before));
}
/* such a sum as a double: its magnitude's two halves (a negative one's low half alone would cancel) */
static double dag__table_sum128_real(uint64_t lo, int64_t hi) {
    if (hi == ((int64_t)lo < 0 ? -1 : 0)) return (double)(int64_t)lo;   /* it fits int64 */
    bool neg = hi < 0;
    uint64_t mlo = neg ? 0 - lo : lo, mhi = neg ? ~(uint64_t)hi + (lo == 0) : (uint64_t)hi;
    double m = (double)mhi * 18446744073709551616.0 + (double)mlo;
    return neg ? -m : m;
}
/* adds row i (its value present; CORR: both) to state s */
static void dag__table_state_add(dag__table_state *s, const dag__table_agg *a, const dag_table_column *c, const dag_table_column *c2,
                                 int64_t i) {
    bool first = s->n++ == 0, ints = dag__table_is_int(a->type);
    switch (a->op) {
    case DAG_TABLE_COUNT: case DAG_TABLE_COUNT_ALL: break;
    case DAG_TABLE_SUM: case DAG_TABLE_MEAN:
        if (ints) dag__table_sum128_add(&s->u.s.lo, &s->u.s.hi, (uint64_t)dag__table_get_int(c, i), dag__table_get_int(c, i) < 0 ? -1 : 0);
        else s->u.v.d += dag__table_get_real(c, i);
        break;
    case DAG_TABLE_USER: a->user->step(s->u.user, dag__table_get_real(c, i)); break;
    case DAG_TABLE_MIN: case DAG_TABLE_MAX: {
        bool max = a->op == DAG_TABLE_MAX;
        if (ints) {
            int64_t v = dag__table_get_int(c, i);
            if (first || (max ? v > s->u.v.i : v < s->u.v.i)) s->u.v.i = v;
        } else {
            double v = dag__table_get_real(c, i);
            if (first || (max ? dag__table_real_above(v, s->u.v.d) : dag__table_real_above(s->u.v.d, v))) s->u.v.d = v;
        }
        break;
    }
    case DAG_TABLE_CORR: {   /* the co-moment's running update */
        double x = dag__table_get_real(c, i), y = dag__table_get_real(c2, i), dx = x - s->u.c.mx, dy = y - s->u.c.my;
        s->u.c.mx += dx / (double)s->n;
        s->u.c.my += dy / (double)s->n;
        s->u.c.m2x += dx * (x - s->u.c.mx);
        s->u.c.m2y += dy * (y - s->u.c.my);
        s->u.c.cxy += dx * (y - s->u.c.my);
        break;
    }
    default: {   /* VAR, SD: the running mean and squares (Welford) */
        double v = dag__table_get_real(c, i), delta = v - s->u.w.mean;
        s->u.w.mean += delta / (double)s->n;
        s->u.w.m2 += delta * (v - s->u.w.mean);
    }
    }
}
/* Adds rows i < n of cols to a's states of their groups, gid[i] (gid NULL: all to group 0), in states of
   `stride` bytes a group, a column at a time; holistic aggregates wait. */
static void dag__table_states_add(char *st, int64_t stride, const dag__table_agg *a, const dag_table_column *cols, const int64_t *gid,
                                  int64_t n) {
    if (dag__table_holistic(a)) return;
    const dag_table_column *c = a->col >= 0 ? &cols[a->col] : NULL, *c2 = a->col2 >= 0 ? &cols[a->col2] : NULL;
    bool all = !c || dag__table_all_valid(c->valid, n), all2 = !c2 || dag__table_all_valid(c2->valid, n);
    if (a->op == DAG_TABLE_COUNT_ALL || (all && all2 && a->op == DAG_TABLE_COUNT)) {   /* counts of rows */
        for (int64_t i = 0; i < n; i++) dag__table_state_of(st, stride, gid ? gid[i] : 0, a)->n++;
        return;
    }
    for (int64_t i = 0; i < n; i++)
        if ((all || dag__table_bit(c->valid, i)) && (all2 || dag__table_bit(c2->valid, i)))
            dag__table_state_add(dag__table_state_of(st, stride, gid ? gid[i] : 0, a), a, c, c2, i);
}
static void dag__table_state_merge(dag__table_state *s, const dag__table_state *o, const dag__table_agg *a) {
    if (!o->n) return;
    if (a->op == DAG_TABLE_USER) a->user->merge(s->u.user, o->u.user);
    if (!s->n && a->op != DAG_TABLE_USER) {
        memcpy(s, o, (size_t)dag__table_state_size(a));
        return;
    }
    double n1 = (double)s->n, n2 = (double)o->n, n = n1 + n2;
    switch (a->op) {
    case DAG_TABLE_MIN: case DAG_TABLE_MAX: {
        bool max = a->op == DAG_TABLE_MAX;
        if (dag__table_is_int(a->type) ? (max ? o->u.v.i > s->u.v.i : o->u.v.i < s->u.v.i)
                                       : (max ? dag__table_real_above(o->u.v.d, s->u.v.d) : dag__table_real_above(s->u.v.d, o->u.v.d)))
            s->u.v = o->u.v;
        break;
    }
    case DAG_TABLE_SUM: case DAG_TABLE_MEAN:
        if (dag__table_is_int(a->type)) dag__table_sum128_add(&s->u.s.lo, &s->u.s.hi, o->u.s.lo, o->u.s.hi);
        else s->u.v.d += o->u.v.d;
        break;
    case DAG_TABLE_VAR: case DAG_TABLE_SD: {   /* Chan's merge */
        double delta = o->u.w.mean - s->u.w.mean;
        s->u.w.m2 += o->u.w.m2 + delta * delta * n1 * n2 / n;
        s->u.w.mean += delta * n2 / n;
        break;
    }
    case DAG_TABLE_CORR: {
        double dx = o->u.c.mx - s->u.c.mx, dy = o->u.c.my - s->u.c.my;
        s->u.c.m2x += o->u.c.m2x + dx * dx * n1 * n2 / n;
        s->u.c.m2y += o->u.c.m2y + dy * dy * n1 * n2 / n;
        s->u.c.cxy += o->u.c.cxy + dx * dy * n1 * n2 / n;
        s->u.c.mx += dx * n2 / n, s->u.c.my += dy * n2 / n;
        break;
    }
    default: break;
    }
    s->n += o->n;
}
/* The result's type of aggregate a */
static dag_table_type dag__table_agg_type(const dag__table_agg *a) {
    switch (a->op) {
    case DAG_TABLE_SUM: return dag__table_is_int(a->type) ? DAG_TABLE_I64 : DAG_TABLE_F64;
    case DAG_TABLE_MIN: case DAG_TABLE_MAX: case DAG_TABLE_LARGEST: case DAG_TABLE_SMALLEST: return (dag_table_type)a->type;
    case DAG_TABLE_COUNT: case DAG_TABLE_COUNT_ALL: return DAG_TABLE_I64;
    default: return DAG_TABLE_F64;
    }
}
/* state s as a value: present or not, in i (integers) or d */
static dag_table_value dag__table_state_value(const dag__table_state *s, const dag__table_agg *a) {
    dag_table_value v = { 1, dag__table_agg_type(a), 0, 0 };
    bool ints = dag__table_is_int(a->type);
    switch (a->op) {
    case DAG_TABLE_COUNT: case DAG_TABLE_COUNT_ALL: v.i = s->n; break;
    case DAG_TABLE_SUM:
        v.present = s->n > 0;
        if (ints && s->u.s.hi != ((int64_t)s->u.s.lo < 0 ? -1 : 0)) {   /* past int64: missing, and said */
            v.present = 0;
            dag_log(DAG_LOG_ERROR, DAG_ERR_INVALID_ARGUMENT, "dag_table: a SUM of integers is %g, past int64's range: "
                    "it is missing (a MEAN, or a SUM of the column converted to f64, holds it)",
                    dag__table_sum128_real(s->u.s.lo, s->u.s.hi));
        }
        if (ints) v.i = (int64_t)s->u.s.lo, v.d = (double)v.i;
        else v.d = s->u.v.d;
        break;
    case DAG_TABLE_MIN: case DAG_TABLE_MAX:
        v.present = s->n > 0;
        if (ints) v.i = s->u.v.i, v.d = (double)v.i;
        else v.d = s->u.v.d;
        break;
    case DAG_TABLE_MEAN:
        v.present = s->n > 0;
        v.d = (ints ? dag__table_sum128_real(s->u.s.lo, s->u.s.hi) : s->u.v.d) / (double)s->n;
        break;
    case DAG_TABLE_VAR: case DAG_TABLE_SD:
        v.present = s->n > 1, v.d = v.present ? s->u.w.m2 / (double)(s->n - 1) : 0;
        if (a->op == DAG_TABLE_SD) v.d = sqrt(v.d);
        break;
    case DAG_TABLE_CORR: v.present = s->n > 0, v.d = s->u.c.cxy / sqrt(s->u.c.m2x * s->u.c.m2y); break;   /* one pair: NaN, as DuckDB */
    default: v.present = s->n > 0 && a->user->finish(s->u.user, &v.d); break;
    }
    return v;
}
static void dag__table_put_value(dag_table_column *c, int type, int64_t i, dag_table_value v) {
    dag__table_set_bit(c->valid, i, v.present);
    switch (type) {
    case DAG_TABLE_I32: ((int32_t *)c->values)[i] = (int32_t)v.i; break;
    case DAG_TABLE_I64: ((int64_t *)c->values)[i] = v.i; break;
    case DAG_TABLE_F32: ((float *)c->values)[i] = (float)v.d; break;
    default: ((double *)c->values)[i] = v.d; break;
    }
}

/* >>holistic aggregates: over the rows rows[0..m) of one group */
/* The row of the n-th largest present value (SMALLEST, MIN: smallest), the
   first such row on ties; -1 when fewer are present. top: room for the group's m rows. */
static int64_t dag__table_nth_row(const dag__table_agg *a, const dag_table_column *c, const int64_t *rows, int64_t m, int64_t *top) {
    int64_t k = 0, nth = a->nth;
    if (nth > m) return -1;   /* fewer rows than n: top needs room for at most the group's rows */
    int sign = a->op == DAG_TABLE_LARGEST || a->op == DAG_TABLE_MAX ? 1 : -1;
    for (int64_t r = 0; r < m; r++) {
        int64_t row = rows[r];
        if (!dag__table_bit(c->valid, row)) continue;
        if (k == nth && sign * dag__table_cmp_rows(c, row, c, top[nth - 1]) <= 0) continue;   /* not above the n-th so far */
        int64_t j = k < nth ? k++ : nth - 1;
        for (; j > 0 && sign * dag__table_cmp_rows(c, row, c, top[j - 1]) > 0; j--) top[j] = top[j - 1];
        top[j] = row;
    }
    return k == nth ? top[nth - 1] : -1;
}
static void dag__table_swap_reals(double *x, int64_t i, int64_t j) {
    double t = x[i];
    x[i] = x[j], x[j] = t;
}
/* x[k] after x[lo..hi] is ordered (no NaNs in it), in place (quickselect) */
static double dag__table_select(double *x, int64_t lo, int64_t hi, int64_t k) {
    while (lo < hi) {
        double pivot = x[lo + (hi - lo) / 2];
        int64_t i = lo, j = hi;
        while (i <= j) {
            while (x[i] < pivot) i++;
            while (x[j] > pivot) j--;
            if (i <= j) dag__table_swap_reals(x, i++, j--);
        }
        if (k <= j) hi = j;
        else if (k >= i) lo = i;
        else return x[k];
    }
    return x[k];
}
/* The median of the present values (the mean of the middle two for an even
   count; NaN above every number); scratch: room for m. */
static dag_table_value dag__table_median(const dag_table_column *c, const int64_t *rows, int64_t m, double *x) {
    dag_table_value v = { 0, DAG_TABLE_F64, 0, 0 };
    int64_t n = 0, nans = 0;
    for (int64_t r = 0; r < m; r++) {
        if (!dag__table_bit(c->valid, rows[r])) continue;
        double d = dag__table_get_real(c, rows[r]);
        if (d != d) nans++;
        else x[n++] = d;
    }
    int64_t count = n + nans, k = (count - 1) / 2;
    if (!count) return v;
    v.present = 1;
    if (count % 2 ? k >= n : k + 1 >= n) {   /* a NaN among the middle values */
        v.d = NAN;
        return v;
    }
    double lo = dag__table_select(x, 0, n - 1, k), hi = lo;
    if (count % 2 == 0) {   /* the next one up: the smallest above position k */
        hi = x[k + 1];
        for (int64_t j = k + 2; j < n; j++) hi = x[j] < hi ? x[j] : hi;
    }
    /* (of opposite signs, or an infinity, the sum: the difference could overflow, or be inf - inf;
       else the difference: the sum could overflow) */
    v.d = lo == hi ? lo : (lo < 0) != (hi < 0) || isinf(lo) || isinf(hi) ? (lo + hi) / 2 : lo + (hi - lo) / 2;
    return v;
}
/* The holistic aggregates of groups e < ngroups (their rows: order from
   start[e]) of cols into column `at` of out: a median as a value, a picked
   row by gathering it from its column. */
static bool dag__table_holistic_results(dag__table_builder *out, int at, const dag__table_agg *a, const dag_table_column *cols,
                                        const int64_t *start, const int64_t *order, int64_t ngroups) {
    int64_t most = 1;
    for (int64_t e = 0; e < ngroups; e++) most = start[e + 1] - start[e] > most ? start[e + 1] - start[e] : most;
    int64_t *pick = (int64_t *)dag__table_alloc(sizeof(int64_t) * (size_t)(ngroups + 1));
    void *scratch = dag__table_alloc(8 * (size_t)most);   /* a median's values, or the n largest (n <= the group's rows) */
    bool ok = pick && scratch;
    for (int64_t e = 0; ok && e < ngroups; e++) {
        const int64_t *rows = order + start[e];
        int64_t m = start[e + 1] - start[e];
        if (dag__table_picks_row(a)) pick[e] = dag__table_nth_row(a, &cols[a->col], rows, m, (int64_t *)scratch);
        else dag__table_put_value(&out->cols[at], out->types[at], out->rows + e, dag__table_median(&cols[a->col], rows, m, (double *)scratch));
    }
    if (ok && dag__table_picks_row(a)) ok = dag__builder_put(out, at, &cols[a->col], 0, pick, ngroups);
    DAG_FREE(pick), DAG_FREE(scratch);
    return ok;
}

/* >>reduce: a state per partition (its meta), merged on every rank; a
   holistic aggregate over the column collected on every rank */
typedef struct dag__table_reducing { const dag_table *in; dag__table_agg agg; } dag__table_reducing;
enum { DAG__TABLE_STATE_WORDS = sizeof(dag__table_state) / 8 };
static void dag__table_reduce_unit(dag__table_job *job, int64_t p, int64_t *meta) {
    const dag__table_reducing *r = (const dag__table_reducing *)job->op;
    dag__table_state s;
    dag__table_state_init(&s, &r->agg);
    dag_table_view v;
    dag_table_column *cols = dag__table_view_new(r->in, p, &v);
    if (!cols) {
        dag__table_job_fail_memory(job, p);
        return;
    }
    dag__table_states_add((char *)&s, 0, &r->agg, v.columns, NULL, v.rows);
    memcpy(meta, &s, sizeof s);
    DAG_FREE(cols);
}
static dag_result dag__table_reduce_holistic(dag_table *t, const dag__table_agg *agg, dag_table_value *out) {
    dag_table_column *cols = NULL;
    dag_table *one = dag_table_select(t, (const char *const *)&t->names[agg->col], 1);
    dag_result r = one ? dag_table_collect(one, &cols) : DAG_ERR_OUT_OF_MEMORY;
    dag__table_builder b;
    dag__table_agg a = *agg;
    int type = dag__table_agg_type(&a);
    int64_t zero[2] = { 0, t->rows }, *order = (int64_t *)dag__table_alloc(sizeof(int64_t) * (size_t)(t->rows + 1));
    a.col = 0;
    if (r == DAG_OK && order && dag__builder_init(&b, 1, &type) && dag__builder_reserve(&b, 1)) {
        for (int64_t i = 0; i < t->rows; i++) order[i] = i;
        if (!dag__table_holistic_results(&b, 0, &a, cols, zero, order, 1)) r = DAG_ERR_OUT_OF_MEMORY;
        dag_table_value v = { dag__table_bit(b.cols[0].valid, 0), dag__table_is_int(type) ? DAG_TABLE_I64 : DAG_TABLE_F64, 0, 0 };
        if (v.present && v.type == DAG_TABLE_I64) v.i = dag__table_get_int(&b.cols[0], 0);
        else if (v.present) v.d = dag__table_get_real(&b.cols[0], 0);
        *out = v;
    } else if (r == DAG_OK) {
        r = DAG_ERR_OUT_OF_MEMORY;
    }
    dag__builder_free(&b);
    dag_table_columns_free(cols, 1);
    dag_table_free(one);
    DAG_FREE(order);
    return r;
}
dag_result dag_table_reduce(dag_table *t, const dag_table_aggregate *aggregate, dag_table_value *out) {
    dag__wait_spawned();
    dag__table_reducing r;
    memset(&r, 0, sizeof r);
    r.in = t;
    if (!dag__table_usable(t, "dag_table_reduce") || !aggregate || !out ||
        !dag__table_resolve_aggs(t, aggregate, 1, &r.agg, "dag_table_reduce")) {
        if (t && (!aggregate || !out)) dag_log(DAG_LOG_ERROR, DAG_ERR_INVALID_ARGUMENT, "dag_table_reduce: no aggregate or no output");
        return DAG_ERR_INVALID_ARGUMENT;
    }
    if (r.agg.type == DAG_TABLE_STR && r.agg.op != DAG_TABLE_COUNT) {
        dag_log(DAG_LOG_ERROR, DAG_ERR_INVALID_ARGUMENT, "dag_table_reduce: '%s' is a column of strings (groupby takes them)", aggregate->column);
        return DAG_ERR_INVALID_ARGUMENT;
    }
    if (dag__table_holistic(&r.agg)) return dag__table_reduce_holistic(t, &r.agg, out);
    dag__table_job job;
    dag_result res = dag__table_job_of(&job, "dag_table_reduce", t->nparts, DAG__TABLE_STATE_WORDS, t->owner, dag__table_reduce_unit, &r);
    if (res == DAG_OK) {
        dag__table_state all, part;
        dag__table_state_init(&all, &r.agg);
        for (int64_t p = 0; p < t->nparts; p++) {   /* in partition order on every rank: the same result everywhere */
            memcpy(&part, job.meta + p * DAG__TABLE_STATE_WORDS, sizeof part);
            dag__table_state_merge(&all, &part, &r.agg);
        }
        *out = dag__table_state_value(&all, &r.agg);
        if (out->type == DAG_TABLE_I32) out->type = DAG_TABLE_I64;
        if (out->type == DAG_TABLE_F32) out->type = DAG_TABLE_F64;
    }
    DAG_FREE(job.meta);
    return res;
}

/* >>groupby. Each partition is aggregated where it lives into partial
   groups (its keys, their hash, the states as one raw column) while that
   shrinks it (groups under an eighth of its rows); past that (many groups:
   their states would not stay in cache) its rows themselves go (their keys,
   the aggregates' columns and the hash). Either is dealt by hash to the
   buckets, each of which holds a share of the groups: partial states merge
   there, rows are added there. With a holistic aggregate every partition
   sends its rows, and each bucket keeps them and groups them at the end,
   so that the aggregate sees all of a group's values. */
typedef struct dag__table_bucket_groups {
    dag__table_groups groups;
    dag__table_builder held;      /* the groups' keys (holistic: the rows dealt here) */
    char *states;                 /* the groups' states, stride bytes each */
    int64_t states_cap;
} dag__table_bucket_groups;
typedef struct dag__table_grouping {
    const dag_table *in;
    int nkeys, naggs, ncarried;
    int *keys;                    /* the key columns of the input */
    int *key_at;                  /* 0, 1, ...: the keys' columns in a piece */
    int *carried;                 /* the input's columns rows carry: the keys, then the aggregates' */
    dag__table_agg *aggs;         /* over the input's columns */
    dag__table_agg *row_aggs;     /* over the carried columns */
    int *row_types;               /* a piece of rows: the carried columns' types, then the hash (int64) */
    int *partial_types;           /* a piece of partial groups: the keys', the hash, the states (raw) */
    int64_t stride;               /* the bytes of a group's states (dag__table_pack_states) */
    bool holistic;
    dag__table_bucket_groups *bucket;
} dag__table_grouping;

static bool dag__table_grow_states(char **states, int64_t *cap, int64_t need) {
    if (need <= *cap) return true;
    int64_t c = *cap ? *cap : 1024;
    while (c < need) c *= 2;
    char *s = (char *)DAG_REALLOC(*states, (size_t)c);
    if (!s) return false;
    *states = s, *cap = c;
    return true;
}
/* the states of groups e0 <= e < e1 made empty */
static void dag__table_states_init(char *states, int64_t stride, int64_t e0, int64_t e1, const dag__table_agg *aggs, int na) {
    for (int64_t e = e0; e < e1; e++)
        for (int a = 0; a < na; a++) dag__table_state_init(dag__table_state_of(states, stride, e, &aggs[a]), &aggs[a]);
}
/* What a partition deals, in one block: the input's columns, the carried ones and the hash's, the hash and its
   bitmap; and the partial groups, when they are what goes. */
typedef struct dag__table_dealt { char *block; dag__table_builder partial; } dag__table_dealt;
static void dag__table_release_dealt(dag__table_shuffle *s, void *scratch) {
    (void)s;
    dag__table_dealt *d = (dag__table_dealt *)scratch;
    if (d) dag__builder_free(&d->partial), DAG_FREE(d->block);
    DAG_FREE(d);
}
/* partition u's rows as pieces of rows carry them, their hash in view column ncarried */
static bool dag__table_rows_view(const dag__table_grouping *o, int64_t u, dag__table_dealt *d, dag_table_view *v) {
    int64_t n = o->in->part_rows[u], ncols = o->in->ncols + o->ncarried + 1;
    d->block = (char *)dag__table_alloc(sizeof(dag_table_column) * (size_t)ncols + 8 * (size_t)(n + 1) + (size_t)dag__table_valid_bytes(n) + 1);
    if (!d->block) return false;
    dag_table_column *in = (dag_table_column *)(void *)d->block, *carried = in + o->in->ncols, *h = carried + o->ncarried;
    uint64_t *hash = (uint64_t *)(void *)(d->block + sizeof(dag_table_column) * (size_t)ncols);
    dag__table_view_of(o->in, u, v, in);
    for (int j = 0; j < o->ncarried; j++) carried[j] = in[o->carried[j]];
    dag__table_hash_rows(carried, o->key_at, o->nkeys, n, hash);
    memset(h, 0, sizeof *h);
    h->type = DAG_TABLE_I64, h->values = hash, h->valid = (uint8_t *)(hash + n + 1);
    memset(h->valid, 0xff, (size_t)dag__table_valid_bytes(n) + 1);
    v->num_columns = o->ncarried + 1, v->columns = carried;
    return true;
}
/* the partial groups of rows v (carried columns) into d->partial, while they are under `limit`; false otherwise or without memory */
static bool dag__table_partials(const dag__table_grouping *o, const dag_table_view *v, int64_t limit, dag__table_dealt *d) {
    int na = o->naggs, nk = o->nkeys;
    int64_t n = v->rows;
    const uint64_t *hash = (const uint64_t *)v->columns[o->ncarried].values;
    dag__table_groups g = { NULL, 0, 0 };
    char *states = NULL;
    int64_t *gid = (int64_t *)dag__table_alloc(sizeof(int64_t) * (size_t)(n + 1)), *rep = (int64_t *)dag__table_alloc(sizeof(int64_t) * (size_t)(n + 1));
    dag__table_keyset a = { v->columns, o->key_at, NULL };
    dag__table_builder *b = &d->partial;
    bool ok = gid && rep && dag__groups_find(&g, hash, n, &a, &a, nk, true, false, limit, gid, rep) == n &&
              (states = (char *)dag__table_alloc((size_t)(g.count * o->stride + 1))) != NULL;
    if (ok) {
        dag__table_states_init(states, o->stride, 0, g.count, o->row_aggs, na);
        for (int k = 0; k < na; k++) dag__table_states_add(states, o->stride, &o->row_aggs[k], v->columns, gid, n);
    }
    ok = ok && dag__builder_init(b, nk + 2, o->partial_types) && dag__builder_reserve(b, g.count);
    for (int k = 0; ok && k < nk; k++) ok = dag__builder_put(b, k, &v->columns[k], 0, rep, g.count);
    if (ok) {
        for (int64_t e = 0; e < g.count; e++) ((uint64_t *)b->cols[nk].values)[e] = hash[rep[e]];
        if (g.count && na) memcpy(b->cols[nk + 1].values, states, (size_t)(g.count * o->stride));
        memset(b->cols[nk].valid, 0xff, (size_t)dag__table_valid_bytes(g.count));
        memset(b->cols[nk + 1].valid, 0xff, (size_t)dag__table_valid_bytes(g.count));
        b->rows = g.count;
    }
    dag__groups_free(&g);
    DAG_FREE(gid), DAG_FREE(rep), DAG_FREE(states);
    return ok;
}
/* Partition u: its partial groups, or its rows (many groups, or a holistic aggregate), and each one's bucket. */
static bool dag__table_deal_groups(dag__table_shuffle *s, int64_t u, dag_table_view *v, const int **types, int64_t **bucket,
                                   void **scratch) {
    const dag__table_grouping *o = (const dag__table_grouping *)s->op;
    dag__table_dealt *d = (dag__table_dealt *)dag__table_zalloc(sizeof *d);
    *scratch = d;
    if (!d || !dag__table_rows_view(o, u, d, v)) return false;
    int64_t n = v->rows, limit = n / 8 > 1024 ? n / 8 : 1024;
    bool partial = !o->holistic && dag__table_partials(o, v, limit, d);
    if (partial) v->rows = d->partial.rows, v->num_columns = o->nkeys + 2, v->columns = d->partial.cols;
    if (!partial) dag__builder_free(&d->partial);
    *types = partial ? o->partial_types : o->row_types;
    const uint64_t *hash = (const uint64_t *)v->columns[partial ? o->nkeys : o->ncarried].values;
    if (!(*bucket = (int64_t *)dag__table_alloc(sizeof(int64_t) * (size_t)(v->rows + 1)))) return false;
    for (int64_t i = 0; i < v->rows; i++) (*bucket)[i] = dag__table_bucket(hash[i], s->out->nparts);
    return true;
}
/* a piece into bucket q: rows kept (holistic), or their groups found (new ones' keys kept) and their states merged or added to */
static void dag__table_absorb_groups(dag__table_shuffle *s, int64_t q, int64_t u, const dag_table_view *piece) {
    (void)u;
    const dag__table_grouping *o = (const dag__table_grouping *)s->op;
    dag__table_bucket_groups *bg = &o->bucket[q];
    if (o->holistic) {
        if (!dag__shuffle_keep(s, q, &bg->held, piece)) s->stash[q].failed = true;
        return;
    }
    int nk = o->nkeys, na = o->naggs;
    bool partial = piece->num_columns == nk + 2 && (int)piece->columns[nk + 1].type >= DAG__TABLE_RAW;
    int64_t n = piece->rows, first = bg->groups.count;
    const uint64_t *hash = (const uint64_t *)piece->columns[partial ? nk : o->ncarried].values;
    int64_t *gid = (int64_t *)dag__table_alloc(sizeof(int64_t) * (size_t)(n + 1));
    int64_t *added = (int64_t *)dag__table_alloc(sizeof(int64_t) * (size_t)(n + 1));
    dag__table_keyset a = { piece->columns, o->key_at, NULL }, b = { bg->held.cols, o->key_at, NULL };
    bool ok = gid && added && !bg->held.failed && dag__groups_find(&bg->groups, hash, n, &a, &b, nk, true, false, -1, gid, added) == n;
    int64_t fresh = ok ? bg->groups.count - first : 0;
    ok = ok && dag__table_grow_states(&bg->states, &bg->states_cap, bg->groups.count * o->stride) && dag__builder_reserve(&bg->held, fresh);
    for (int k = 0; ok && k < nk; k++) ok = dag__builder_put(&bg->held, k, &piece->columns[k], 0, added, fresh);
    if (ok) {
        char *states = partial ? (char *)piece->columns[nk + 1].values : NULL;
        bg->held.rows += fresh;
        dag__table_states_init(bg->states, o->stride, first, bg->groups.count, o->row_aggs, na);
        for (int64_t r = 0; partial && r < n; r++)
            for (int k = 0; k < na; k++)
                dag__table_state_merge(dag__table_state_of(bg->states, o->stride, gid[r], &o->row_aggs[k]),
                                       dag__table_state_of(states, o->stride, r, &o->row_aggs[k]), &o->row_aggs[k]);
        for (int k = 0; !partial && k < na; k++) dag__table_states_add(bg->states, o->stride, &o->row_aggs[k], piece->columns, gid, n);
    } else {
        s->stash[q].failed = true;
    }
    DAG_FREE(gid), DAG_FREE(added);
}
/* The results of ngroups groups into out: their keys (rows rep of keys, rep NULL: rows 0...; keys NULL: there
   already), then each aggregate that is not holistic from its state */
static bool dag__table_put_groups(dag__table_builder *out, const dag__table_grouping *o, const dag_table_column *keys, const int64_t *rep,
                                  char *states, int64_t ngroups) {
    if (!dag__builder_reserve(out, ngroups)) return false;
    for (int k = 0; keys && k < o->nkeys; k++)
        if (!dag__builder_put(out, k, &keys[o->key_at[k]], 0, rep, ngroups)) return false;
    for (int a = 0; a < o->naggs; a++)
        for (int64_t e = 0; !dag__table_holistic(&o->row_aggs[a]) && e < ngroups; e++)
            dag__table_put_value(&out->cols[o->nkeys + a], out->types[o->nkeys + a], out->rows + e,
                                 dag__table_state_value(dag__table_state_of(states, o->stride, e, &o->row_aggs[a]), &o->row_aggs[a]));
    return true;
}
/* the rows kept in a bucket (holistic), grouped: algebraic aggregates by states, holistic ones over each group's rows */
static bool dag__table_finish_rows(const dag__table_grouping *o, dag__table_bucket_groups *bg, dag__table_builder *out) {
    int64_t n = bg->held.rows, ng = 0, *start = NULL, *order = NULL;
    int na = o->naggs;
    int64_t *gid = (int64_t *)dag__table_alloc(sizeof(int64_t) * (size_t)(n + 1));
    int64_t *rep = (int64_t *)dag__table_alloc(sizeof(int64_t) * (size_t)(n + 1));
    dag__table_keyset a = { bg->held.cols, o->key_at, NULL };
    bool ok = gid && rep && dag__groups_find(&bg->groups, (const uint64_t *)bg->held.cols[o->ncarried].values, n, &a, &a, o->nkeys, true,
                                             false, -1, gid, rep) == n;
    ng = bg->groups.count;
    ok = ok && dag__table_grow_states(&bg->states, &bg->states_cap, ng * o->stride + 1) && dag__table_rows_by_group(gid, n, ng, &start, &order);
    if (ok) {
        dag__table_states_init(bg->states, o->stride, 0, ng, o->row_aggs, na);
        for (int k = 0; k < na; k++) dag__table_states_add(bg->states, o->stride, &o->row_aggs[k], bg->held.cols, gid, n);
        ok = dag__table_put_groups(out, o, bg->held.cols, rep, bg->states, ng);
    }
    for (int k = 0; ok && k < na; k++)
        if (dag__table_holistic(&o->row_aggs[k]))
            ok = dag__table_holistic_results(out, o->nkeys + k, &o->row_aggs[k], bg->held.cols, start, order, ng);
    if (ok) out->rows += ng;
    DAG_FREE(gid), DAG_FREE(rep), DAG_FREE(start), DAG_FREE(order);
    return ok;
}
/* the keys a bucket holds become the result's key columns, as they are (out, empty, has room for them) */
static void dag__table_move_keys(dag__table_builder *out, dag__table_builder *held, int nkeys) {
    for (int k = 0; k < nkeys; k++) {
        dag_table_column c = out->cols[k];
        int64_t nchars = out->nchars[k], cap = out->chars_cap[k];
        out->cols[k] = held->cols[k], out->nchars[k] = held->nchars[k], out->chars_cap[k] = held->chars_cap[k];
        held->cols[k] = c, held->nchars[k] = nchars, held->chars_cap[k] = cap;
    }
}
static bool dag__table_finish_groups(dag__table_shuffle *s, int64_t q, dag__table_builder *out) {
    const dag__table_grouping *o = (const dag__table_grouping *)s->op;
    dag__table_bucket_groups *bg = &o->bucket[q];
    if (bg->held.failed) return false;
    if (o->holistic) return dag__table_finish_rows(o, bg, out);
    if (out->rows || !dag__builder_reserve(out, bg->held.cap)) return false;   /* (out's capacity: held's) */
    dag__table_move_keys(out, &bg->held, o->nkeys);
    if (!dag__table_put_groups(out, o, NULL, NULL, bg->states, bg->held.rows)) return false;
    out->rows = bg->held.rows;
    return true;
}
static const char *dag__table_agg_word(dag_table_agg op) {
    static const char *w[] = { "", "sum", "min", "max", "count", "count", "mean", "var", "sd", "user", "corr", "median", "largest",
                               "smallest" };
    return w[op];
}
/* the columns rows carry (keys, then each aggregate's once), the aggregates over them, and the pieces' types */
static void dag__table_plan_pieces(dag__table_grouping *o) {
    int n = o->nkeys;
    for (int k = 0; k < o->nkeys; k++) o->carried[k] = o->keys[k], o->key_at[k] = k;
    for (int a = 0; a < o->naggs; a++) {
        int *col[2] = { &o->row_aggs[a].col, &o->row_aggs[a].col2 };
        o->row_aggs[a] = o->aggs[a];
        o->holistic |= dag__table_holistic(&o->aggs[a]);
        for (int j = 0; j < 2; j++) {
            if (*col[j] < 0) continue;
            int at = 0;
            while (at < n && o->carried[at] != *col[j]) at++;
            if (at == n) o->carried[n++] = *col[j];
            *col[j] = at;
        }
    }
    o->ncarried = n;
    for (int j = 0; j < n; j++) o->row_types[j] = o->in->types[o->carried[j]];
    o->row_types[n] = DAG_TABLE_I64;
    for (int k = 0; k < o->nkeys; k++) o->partial_types[k] = o->row_types[k];
    o->stride = dag__table_pack_states(o->row_aggs, o->naggs);
    o->partial_types[o->nkeys] = DAG_TABLE_I64, o->partial_types[o->nkeys + 1] = DAG__TABLE_RAW + (int)o->stride;
}
/* the result's names (aggregates: .as, else "sum_v1"...; made: room for them, a column's name whole) and types; false
   on two of one name */
#define DAG__TABLE_MADE_NAME 1040
static bool dag__table_group_names(const dag__table_grouping *o, const dag_table_aggregate *aggs, const char **names,
                                   char (*made)[DAG__TABLE_MADE_NAME], dag_table_type *types) {
    int n = o->nkeys + o->naggs;
    for (int k = 0; k < o->nkeys; k++) names[k] = o->in->names[o->keys[k]], types[k] = o->in->types[o->keys[k]];
    for (int a = 0; a < o->naggs; a++) {
        if (aggs[a].as) names[o->nkeys + a] = aggs[a].as;
        else {
            int len = snprintf(made[a], sizeof made[a], "%s_%s", dag__table_agg_word(aggs[a].op), aggs[a].column ? aggs[a].column : "star");
            if (len >= (int)sizeof made[a]) {
                dag_log(DAG_LOG_ERROR, DAG_ERR_INVALID_ARGUMENT, "dag_table_groupby: aggregate %d: its column's name is too "
                        "long for a made name (%d bytes at most): name the result with .as", a + 1, DAG__TABLE_MADE_NAME - 8);
                return false;
            }
            names[o->nkeys + a] = made[a];
        }
        types[o->nkeys + a] = dag__table_agg_type(&o->aggs[a]);
    }
    for (int i = 0; i < n; i++)
        for (int j = 0; j < i; j++)
            if (!strcmp(names[i], names[j])) {
                dag_log(DAG_LOG_ERROR, DAG_ERR_INVALID_ARGUMENT, "dag_table_groupby: two result columns named '%s'", names[i]);
                return false;
            }
    return true;
}
dag_table *dag_table_groupby(dag_table *t, const char *const *keys, int num_keys, const dag_table_aggregate *aggs, int num_aggs) {
    dag__wait_spawned();
    const char *who = "dag_table_groupby";
    if (!dag__table_usable(t, who)) return NULL;
    if (num_keys <= 0 || num_aggs < 0 || (num_aggs && !aggs)) {
        dag_log(DAG_LOG_ERROR, DAG_ERR_INVALID_ARGUMENT, "%s: needs at least one key and a list of aggregates", who);
        return NULL;
    }
    int n = num_keys + num_aggs, most = num_keys + 2 * num_aggs + 2;
    dag__table_grouping o;
    memset(&o, 0, sizeof o);
    o.in = t, o.nkeys = num_keys, o.naggs = num_aggs;
    o.keys = (int *)dag__table_alloc(sizeof(int) * (size_t)most);
    o.key_at = (int *)dag__table_alloc(sizeof(int) * (size_t)most);
    o.carried = (int *)dag__table_alloc(sizeof(int) * (size_t)most);
    o.aggs = (dag__table_agg *)dag__table_alloc(sizeof(dag__table_agg) * (size_t)(num_aggs + 1));
    o.row_aggs = (dag__table_agg *)dag__table_alloc(sizeof(dag__table_agg) * (size_t)(num_aggs + 1));
    o.row_types = (int *)dag__table_alloc(sizeof(int) * (size_t)most);
    o.partial_types = (int *)dag__table_alloc(sizeof(int) * (size_t)most);
    const char **names = (const char **)dag__table_zalloc(sizeof(char *) * (size_t)n);
    char (*made)[DAG__TABLE_MADE_NAME] = (char (*)[DAG__TABLE_MADE_NAME])dag__table_zalloc(DAG__TABLE_MADE_NAME * (size_t)(num_aggs + 1));
    dag_table_type *types = (dag_table_type *)dag__table_alloc(sizeof(dag_table_type) * (size_t)n);
    dag_table *d = NULL;
    int64_t buckets = 0;
    if (!o.keys || !o.key_at || !o.carried || !o.aggs || !o.row_aggs || !o.row_types || !o.partial_types || !names || !made || !types ||
        !dag__table_columns_named(t, keys, num_keys, o.keys, who) || !dag__table_resolve_aggs(t, aggs, num_aggs, o.aggs, who))
        goto done;
    dag__table_plan_pieces(&o);
    if (!dag__table_group_names(&o, aggs, names, made, types)) goto done;
    buckets = dag__table_shuffle_buckets(t->nparts);
    d = dag__table_new(n, names, types, buckets, NULL);
    o.bucket = (dag__table_bucket_groups *)dag__table_zalloc(sizeof(dag__table_bucket_groups) * (size_t)buckets);
    for (int64_t q = 0; d && o.bucket && q < buckets; q++)
        dag__builder_init(&o.bucket[q].held, o.holistic ? o.ncarried + 1 : num_keys, o.row_types);
    if (d && o.bucket) {
        dag__table_shuffle s = dag__table_shuffle_of(who, t, d, &o);
        s.deal = dag__table_deal_groups, s.release = dag__table_release_dealt;
        s.absorb = dag__table_absorb_groups, s.finish = dag__table_finish_groups;
        d = dag__shuffle_run(&s);
    } else {
        dag_table_free(d), d = NULL;
    }
done:
    for (int64_t q = 0; o.bucket && q < buckets; q++) {
        dag__groups_free(&o.bucket[q].groups);
        dag__builder_free(&o.bucket[q].held);
        DAG_FREE(o.bucket[q].states);
    }
    DAG_FREE(o.bucket), DAG_FREE(o.keys), DAG_FREE(o.key_at), DAG_FREE(o.carried), DAG_FREE(o.aggs), DAG_FREE(o.row_aggs);
    DAG_FREE(o.row_types), DAG_FREE(o.partial_types), DAG_FREE(names), DAG_FREE(made), DAG_FREE(types);
    return d;
}

/* >>join. The right table's rows are dealt by key hash into buckets, each
   indexed where it lands (its distinct keys, and per key a chain of its
   rows); a left row is probed against its bucket's index and emitted with
   every right row of equal keys (a left join: once with none, when there
   are none). Where the left rows meet the index: on one rank each left
   partition probes in place (every bucket is in its memory); over ranks a
   small right table goes whole to every rank (a bucket per rank) and the
   left partitions probe in place too; else the left rows are dealt to the
   buckets as well. */
typedef struct dag__table_join_bucket {
    dag__table_builder right;      /* the right rows dealt here (all the right's columns) */
    dag__table_groups groups;      /* their distinct keys, each slot's "group" the key's first row (+ 1) */
    int64_t *next;                 /* per row the next of its keys (-1: none) */
    bool indexed, unique;          /* unique: no key twice (no chains to follow) */
} dag__table_join_bucket;
enum { DAG__JOIN_LOCAL = 1, DAG__JOIN_BROADCAST, DAG__JOIN_SHUFFLE };
/* a right table this small is one index (probed in the left's order: a partition that keeps its rows shares them) */
#define DAG__JOIN_ONE_INDEX_ROWS ((int64_t)1 << 20)
typedef struct dag__table_joining {
    const dag_table *left, *right;
    int nkeys, nright;             /* the right's columns in the result */
    int *lk, *rk, *right_out;
    int *ltypes, *rtypes;
    bool left_join;
    int how;                       /* DAG__JOIN_* */
    int64_t buckets;
    dag__table_join_bucket *bucket;
} dag__table_joining;

/* The distinct keys of a bucket's right rows, each slot then naming its key's first row (a probe's "group" is that
   row), and the chains of rows of equal keys. */
static bool dag__table_join_index(const dag__table_joining *o, dag__table_join_bucket *jb) {
    int64_t n = jb->right.rows;
    uint64_t *hash = (uint64_t *)dag__table_alloc(sizeof(uint64_t) * (size_t)(n + 1));
    int64_t *gid = (int64_t *)dag__table_alloc(sizeof(int64_t) * (size_t)(n + 1)), *first = (int64_t *)dag__table_alloc(sizeof(int64_t) * (size_t)(n + 1));
    int64_t *last = (int64_t *)dag__table_alloc(sizeof(int64_t) * (size_t)(n + 1)), rows = 0;
    jb->indexed = true;
    jb->next = (int64_t *)dag__table_alloc(sizeof(int64_t) * (size_t)(n + 1));
    dag__table_keyset a = { jb->right.cols, o->rk, NULL };
    bool ok = hash && gid && first && last && jb->next;
    if (ok) dag__table_hash_rows(jb->right.cols, o->rk, o->nkeys, n, hash);
    ok = ok && dag__groups_find(&jb->groups, hash, n, &a, &a, o->nkeys, true, true, -1, gid, first) == n;   /* missing keys: in none */
    for (int64_t j = 0; ok && j < n; j++) {   /* each key's chain, in the rows' order */
        if (gid[j] < 0) continue;
        jb->next[j] = -1, rows++;
        if (first[gid[j]] != j) jb->next[last[gid[j]]] = j;
        last[gid[j]] = j;
    }
    for (int64_t s = 0; ok && s < jb->groups.cap; s++)
        if (jb->groups.slot[s].group) jb->groups.slot[s].group = first[jb->groups.slot[s].group - 1] + 1;
    jb->unique = rows == jb->groups.count;
    DAG_FREE(hash), DAG_FREE(gid), DAG_FREE(first), DAG_FREE(last);
    return ok;
}
static bool dag__table_push_pair(int64_t **li, int64_t **ri, int64_t *m, int64_t *cap, int64_t i, int64_t j) {
    if (*m == *cap) {
        int64_t *a = (int64_t *)DAG_REALLOC(*li, sizeof(int64_t) * (size_t)*cap * 2);
        if (a) *li = a;
        int64_t *b = a ? (int64_t *)DAG_REALLOC(*ri, sizeof(int64_t) * (size_t)*cap * 2) : NULL;
        if (b) *ri = b;
        if (!a || !b) return false;
        *cap *= 2;
    }
    (*li)[*m] = i, (*ri)[(*m)++] = j;
    return true;
}
/* Left rows sel[0..n) (sel NULL: 0..n) of v, their hashes h[0..n), probed against bucket jb: appended to out. */
static bool dag__table_join_probe(const dag__table_joining *o, const dag__table_join_bucket *jb, const dag_table_view *v, const int64_t *sel,
                                  const uint64_t *h, int64_t n, dag__table_builder *out) {
    int64_t m = 0, cap = n + 16, *li = (int64_t *)dag__table_alloc(sizeof(int64_t) * (size_t)cap);
    int64_t *ri = (int64_t *)dag__table_alloc(sizeof(int64_t) * (size_t)cap), *gid = (int64_t *)dag__table_alloc(sizeof(int64_t) * (size_t)(n + 1));
    dag__table_keyset a = { v->columns, o->lk, sel }, b = { jb->right.cols, o->rk, NULL };
    dag__table_groups groups = jb->groups;   /* (a probe that inserts nothing changes nothing) */
    bool ok = li && ri && gid && dag__groups_find(&groups, h, n, &a, &b, o->nkeys, false, true, -1, gid, NULL) == n;
    for (int64_t i = 0; ok && i < n; i++) {
        int64_t j = gid[i], row = sel ? sel[i] : i;   /* (the group: its first right row) */
        if (j < 0 && !o->left_join) continue;
        do {   /* every match, or the row alone (j = -1: the right's columns missing) */
            ok = dag__table_push_pair(&li, &ri, &m, &cap, row, j);
            j = j >= 0 && !jb->unique ? jb->next[j] : -1;
        } while (ok && j >= 0);
    }
    /* the partition's rows, each once, in order (a left join on unique keys): its left columns are the left's */
    bool same = o->how != DAG__JOIN_SHUFFLE && !out->rows && n == v->rows && m == n;
    for (int64_t i = 0; same && i < m; i++) same = li[i] == i;
    ok = ok && dag__builder_reserve(out, m);
    for (int c = 0; ok && !same && c < o->left->ncols; c++) ok = dag__builder_put(out, c, &v->columns[c], 0, li, m);
    for (int k = 0; ok && k < o->nright; k++) ok = dag__builder_put(out, o->left->ncols + k, &jb->right.cols[o->right_out[k]], 0, ri, m);
    if (ok) out->rows += m, out->same_rows = same;
    DAG_FREE(li), DAG_FREE(ri), DAG_FREE(gid);
    return ok;
}

/* the right's rows by hash (broadcast: every row to every bucket, a bucket per rank) */
static bool dag__table_deal_right(dag__table_shuffle *s, int64_t u, dag_table_view *v, const int **types, int64_t **bucket,
                                  void **scratch) {
    const dag__table_joining *o = (const dag__table_joining *)s->op;
    bool left = u >= o->right->nparts;
    const dag_table *t = left ? o->left : o->right;
    uint64_t *h = NULL;
    if (!(*scratch = dag__table_deal_view(t, left ? u - o->right->nparts : u, v, bucket))) return false;
    *types = left ? o->ltypes : o->rtypes;
    if (o->how == DAG__JOIN_BROADCAST) {   /* no buckets: every row to each */
        DAG_FREE(*bucket);
        *bucket = NULL;
        return true;
    }
    if (!(h = (uint64_t *)dag__table_alloc(sizeof(uint64_t) * (size_t)(v->rows + 1)))) return false;
    dag__table_hash_rows(v->columns, left ? o->lk : o->rk, o->nkeys, v->rows, h);
    for (int64_t i = 0; i < v->rows; i++) (*bucket)[i] = dag__table_bucket(h[i], s->out->nparts);
    DAG_FREE(h);
    return true;
}
static void dag__table_absorb_join(dag__table_shuffle *s, int64_t q, int64_t u, const dag_table_view *piece) {
    const dag__table_joining *o = (const dag__table_joining *)s->op;
    dag__table_join_bucket *jb = &o->bucket[q];
    bool ok;
    if (u < o->right->nparts) {   /* (room for all at once where only the right's rows come: the left's count too otherwise) */
        ok = o->how == DAG__JOIN_SHUFFLE ? dag__builder_append(&jb->right, piece, NULL, piece->rows) : dag__shuffle_keep(s, q, &jb->right, piece);
    } else {   /* a left piece (DAG__JOIN_SHUFFLE): the right's pieces came first */
        uint64_t *h = (uint64_t *)dag__table_alloc(sizeof(uint64_t) * (size_t)(piece->rows + 1));
        ok = h && (jb->indexed || dag__table_join_index(o, jb));
        if (ok) dag__table_hash_rows(piece->columns, o->lk, o->nkeys, piece->rows, h);
        ok = ok && dag__table_join_probe(o, jb, piece, NULL, h, piece->rows, &s->stash[q]);
        DAG_FREE(h);
    }
    if (!ok) s->stash[q].failed = true;
}
static bool dag__table_finish_index(dag__table_shuffle *s, int64_t q, dag__table_builder *out) {
    (void)out;
    const dag__table_joining *o = (const dag__table_joining *)s->op;
    return !o->bucket[q].right.failed && dag__table_join_index(o, &o->bucket[q]);
}
/* a left partition probed where it is: on one rank each row in its bucket (the rows by bucket), over ranks this rank's whole right table */
static bool dag__table_probe_part(dag__table_build *b, int64_t p, dag__table_builder *into) {
    const dag__table_joining *o = (const dag__table_joining *)b->op;
    int64_t n = o->left->part_rows[p], *qid = (int64_t *)dag__table_alloc(sizeof(int64_t) * (size_t)(n + 1)), *start = NULL, *order = NULL;
    uint64_t *h = (uint64_t *)dag__table_alloc(sizeof(uint64_t) * (size_t)(n + 1)), *hq = (uint64_t *)dag__table_alloc(sizeof(uint64_t) * (size_t)(n + 1));
    dag_table_view v;
    dag_table_column *cols = dag__table_view_new(o->left, p, &v);
    bool ok = qid && h && hq && cols;
    if (ok) {
        dag__table_hash_rows(v.columns, o->lk, o->nkeys, n, h);
        for (int64_t i = 0; i < n; i++) qid[i] = o->how == DAG__JOIN_BROADCAST ? dag_rank() : dag__table_bucket(h[i], o->buckets);
        ok = dag__table_rows_by_group(qid, n, o->buckets, &start, &order);
    }
    for (int64_t q = 0; ok && q < o->buckets; q++) {
        int64_t from = start[q], m = start[q + 1] - start[q];
        for (int64_t i = 0; i < m; i++) hq[i] = h[order[from + i]];
        ok = !m || dag__table_join_probe(o, &o->bucket[q], &v, order + from, hq, m, into);
    }
    if (!ok) into->failed = true;
    DAG_FREE(qid), DAG_FREE(start), DAG_FREE(order), DAG_FREE(h), DAG_FREE(hq), DAG_FREE(cols);
    return ok;
}
/* The join by o->how into d (the result's partitions: the left's where the left probes in place, else the buckets). */
static dag_table *dag__table_join_run(dag__table_joining *o, dag_table *d, const int *in_owner) {
    const char *who = "dag_table_join";
    if (o->how == DAG__JOIN_SHUFFLE) {
        dag__table_shuffle s = dag__table_shuffle_of(who, o->left, d, o);
        s.inputs = o->left->nparts + o->right->nparts, s.in_owner = in_owner;
        s.deal = dag__table_deal_right, s.absorb = dag__table_absorb_join;
        return dag__shuffle_run(&s);
    }
    dag_table *index = dag__table_new(0, NULL, NULL, o->buckets, NULL);   /* the buckets, holding no columns of their own */
    dag__table_shuffle s = dag__table_shuffle_of(who, o->right, index, o);
    s.deal = dag__table_deal_right, s.absorb = dag__table_absorb_join, s.finish = dag__table_finish_index;
    index = index ? dag__shuffle_run(&s) : NULL;
    int *built = dag__table_types_of(d), *same = (int *)dag__table_alloc(sizeof(int) * (size_t)d->ncols);
    for (int c = 0; same && c < d->ncols; c++) same[c] = c < o->left->ncols ? c : -1;
    dag__table_build b = { d, NULL, dag__table_probe_part, built, o, o->left, same };
    d = index && built && same ? dag__table_build_run(&b, who) : (dag_table_free(d), NULL);
    dag_table_free(index);
    DAG_FREE(built), DAG_FREE(same);
    return d;
}
/* the result's columns: the left's, then the right's other than its keys ("_right", then "_right_2", ... on a
   clash); false without memory */
static bool dag__table_join_columns(dag__table_joining *o, char **names, dag_table_type *types) {
    const dag_table *left = o->left, *right = o->right;
    for (int c = 0; c < left->ncols; c++) names[c] = dag__table_strdup(left->names[c]), types[c] = left->types[c];
    for (int c = 0; c < right->ncols; c++) {
        bool key = false;
        for (int k = 0; k < o->nkeys; k++) key |= o->rk[k] == c;
        if (key) continue;
        int at = left->ncols + o->nright;
        o->right_out[o->nright++] = c;
        names[at] = dag__table_fresh_name(names, at, right->names[c], "_right");
        types[at] = right->types[c];
    }
    for (int c = 0; c < left->ncols + o->nright; c++)
        if (!names[c]) return false;
    return true;
}
static bool dag__table_join_keys(const dag__table_joining *o, const char *const *left_keys, const char *const *right_keys,
                                 dag_table_join_kind kind, const char *who) {
    if (o->nkeys <= 0 || (kind != DAG_TABLE_INNER && kind != DAG_TABLE_LEFT)) {
        dag_log(DAG_LOG_ERROR, DAG_ERR_INVALID_ARGUMENT, "%s: needs at least one key and DAG_TABLE_INNER or DAG_TABLE_LEFT", who);
        return false;
    }
    if (!dag__table_columns_named(o->left, left_keys, o->nkeys, o->lk, who) ||
        !dag__table_columns_named(o->right, right_keys, o->nkeys, o->rk, who))
        return false;
    for (int k = 0; k < o->nkeys; k++) {
        int a = o->left->types[o->lk[k]], b = o->right->types[o->rk[k]];
        bool reals = (a == DAG_TABLE_F32 || a == DAG_TABLE_F64) && (b == DAG_TABLE_F32 || b == DAG_TABLE_F64);
        if (!(a == b || (dag__table_is_int(a) && dag__table_is_int(b)) || reals)) {
            dag_log(DAG_LOG_ERROR, DAG_ERR_INVALID_ARGUMENT, "%s: key %d: %s '%s' and %s '%s' cannot be equal", who, k,
                    dag__table_type_name(a), o->left->names[o->lk[k]], dag__table_type_name(b), o->right->names[o->rk[k]]);
            return false;
        }
    }
    return true;
}
dag_table *dag_table_join(dag_table *left, dag_table *right, const char *const *left_keys, const char *const *right_keys, int num_keys,
                          dag_table_join_kind kind) {
    dag__wait_spawned();
    const char *who = "dag_table_join";
    if (!dag__table_usable(left, who) || !dag__table_usable(right, who)) return NULL;
    dag__table_joining o;
    memset(&o, 0, sizeof o);
    o.left = left, o.right = right, o.nkeys = num_keys, o.left_join = kind == DAG_TABLE_LEFT;
    int n = left->ncols + right->ncols, ranks = dag_num_ranks();
    o.lk = (int *)dag__table_alloc(sizeof(int) * (size_t)(num_keys > 0 ? num_keys : 1));
    o.rk = (int *)dag__table_alloc(sizeof(int) * (size_t)(num_keys > 0 ? num_keys : 1));
    o.right_out = (int *)dag__table_alloc(sizeof(int) * (size_t)right->ncols);
    o.ltypes = dag__table_types_of(left), o.rtypes = dag__table_types_of(right);
    char **names = (char **)dag__table_zalloc(sizeof(char *) * (size_t)n);
    dag_table_type *types = (dag_table_type *)dag__table_alloc(sizeof(dag_table_type) * (size_t)n);
    int64_t inputs = left->nparts + right->nparts;
    int *in_owner = (int *)dag__table_alloc(sizeof(int) * (size_t)inputs);
    dag_table *d = NULL;
    o.how = ranks == 1 ? DAG__JOIN_LOCAL : right->rows * (ranks - 1) <= left->rows ? DAG__JOIN_BROADCAST : DAG__JOIN_SHUFFLE;
    bool small = right->rows <= DAG__JOIN_ONE_INDEX_ROWS || right->rows * 8 <= left->rows;
    o.buckets = o.how == DAG__JOIN_BROADCAST ? ranks : o.how == DAG__JOIN_LOCAL && small ? 1
              : left->nparts > right->nparts ? left->nparts : right->nparts;
    if (!o.lk || !o.rk || !o.right_out || !o.ltypes || !o.rtypes || !names || !types || !in_owner ||
        !dag__table_join_keys(&o, left_keys, right_keys, kind, who) || !dag__table_join_columns(&o, names, types))
        goto done;
    for (int64_t u = 0; u < inputs; u++) in_owner[u] = u < right->nparts ? right->owner[u] : left->owner[u - right->nparts];
    d = o.how == DAG__JOIN_SHUFFLE ? dag__table_new(left->ncols + o.nright, (const char *const *)names, types, o.buckets, NULL)
                                   : dag__table_new(left->ncols + o.nright, (const char *const *)names, types, left->nparts, left->owner);
    o.bucket = (dag__table_join_bucket *)dag__table_zalloc(sizeof(dag__table_join_bucket) * (size_t)o.buckets);
    for (int64_t q = 0; d && o.bucket && q < o.buckets; q++) dag__builder_init(&o.bucket[q].right, right->ncols, o.rtypes);
    if (d && o.bucket) d = dag__table_join_run(&o, d, in_owner);
    else dag_table_free(d), d = NULL;
done:
    for (int64_t q = 0; o.bucket && q < o.buckets; q++) {
        dag__table_join_bucket *jb = &o.bucket[q];
        dag__builder_free(&jb->right), dag__groups_free(&jb->groups);
        DAG_FREE(jb->next);
    }
    for (int c = 0; names && c < n; c++) DAG_FREE(names[c]);
    DAG_FREE(o.bucket), DAG_FREE(o.lk), DAG_FREE(o.rk), DAG_FREE(o.right_out), DAG_FREE(o.ltypes), DAG_FREE(o.rtypes);
    DAG_FREE(names), DAG_FREE(types), DAG_FREE(in_owner);
    return d;
}

#endif /* DAG_IMPLEMENTATION */
#endif /* host */
