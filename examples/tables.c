/* tables.c: a million sales rows through dag_table.h.

       read_csv (a task per 8 MiB chunk)
          |
       where amount > 10 (a task per partition)
          |
       groupby region: deal partial sums by key hash, merge per bucket
          |
       sort by total, write_csv

   Run: make demo (or cc -std=c11 -O2 -I. examples/tables.c -o tables -pthread -lm && ./tables).
   Writes sales.csv (the input it makes) and totals.csv. */
#define DAG_IMPLEMENTATION
#include "dag_table.h"
#include <stdio.h>

int main(void) {
    enum { ROWS = 1000000 };
    static const char *regions[] = { "north", "south", "east", "west", "\"far\", away" };
    FILE *f = fopen("sales.csv", "w");
    if (!f) return 1;
    fprintf(f, "id,region,amount\n");
    unsigned s = 42;
    for (int i = 0; i < ROWS; i++) {
        s = s * 1103515245u + 12345u;
        const char *r = regions[(s >> 16) % 5];
        if ((s >> 8) % 50 == 0) fprintf(f, "%d,,%u.%02u\n", i, (s >> 4) % 100, s % 100);   /* a missing region */
        else if (r[0] == '"') fprintf(f, "%d,\"\"\"far\"\", away\",%u.%02u\n", i, (s >> 4) % 100, s % 100);
        else fprintf(f, "%d,%s,%u.%02u\n", i, r, (s >> 4) % 100, s % 100);
    }
    fclose(f);

    dag_setup(NULL);
    dag_table *sales = dag_table_read_csv("sales.csv", NULL);
    dag_table *big = sales ? dag_table_where(sales, "amount", DAG_TABLE_GT, 10.0) : NULL;
    const char *keys[] = { "region" };
    dag_table_aggregate aggs[] = { { DAG_TABLE_SUM, "amount", "total", NULL },
                                   { DAG_TABLE_COUNT_ALL, NULL, "sales", NULL },
                                   { DAG_TABLE_MEAN, "amount", "mean", NULL } };
    dag_table *g = big ? dag_table_groupby(big, keys, 1, aggs, 3) : NULL;
    dag_table *sorted = g ? dag_table_sort(g, "total", 1) : NULL;
    dag_result r = sorted ? dag_table_write_csv(sorted, "totals.csv") : DAG_ERR_INVALID_ARGUMENT;
    if (r == DAG_OK)
        printf("%lld rows read in %lld partitions, %lld over 10, %lld regions (missing is one) -> totals.csv\n",
               (long long)dag_table_rows(sales), (long long)dag_table_num_partitions(sales), (long long)dag_table_rows(big),
               (long long)dag_table_rows(g));
    dag_table_free(sorted), dag_table_free(g), dag_table_free(big), dag_table_free(sales);
    dag_shutdown();
    return r == DAG_OK ? 0 : 1;
}
