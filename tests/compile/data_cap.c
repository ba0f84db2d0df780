/* The cap on spans registered at once is named where it is reached, with
   the knob that raises it (DAG_MAX_REGISTERED, set low here); a dag_array
   of more tiles than it is refused before it registers any, and one that
   meets the cap on its way says which tile, not that there is no memory
   for its elements (make check-compile runs this). */
#define DAG_MAX_REGISTERED 2048
#define DAG_IMPLEMENTATION
#include "dag_array.h"
#include <stdio.h>
#include <string.h>

static char said[2][400];
static int count;
static void logger(dag_log_level level, int item, const char *message, void *user) {
    (void)level;
    (void)item;
    (void)user;
    snprintf(said[count++ % 2], sizeof said[0], "%s", message);
}

int main(void) {
    static double x[2049];
    dag_setup(&(dag_desc){ .num_threads = 2, .logger = { logger, NULL } });
    int ok = 1;
    for (int i = 0; i < 2048; i++) ok &= dag_register(&x[i], 1).id != 0;
    dag_data over = dag_register(&x[2048], 1);
    ok &= over.id == 0 && strstr(said[(count - 1) % 2], "2048 spans are registered already") &&
          strstr(said[(count - 1) % 2], "DAG_MAX_REGISTERED");
    printf("%s\n", said[(count - 1) % 2]);
    dag_shutdown();
    dag_setup(&(dag_desc){ .num_threads = 2, .logger = { logger, NULL } });
    dag_array *a = dag_array_zeros(DAG_F64, 64, 64, dag_blocks(1, 1));   /* 4096 tiles of 1 x 1: refused before any */
    ok &= a == NULL && strstr(said[(count - 1) % 2], "64 x 64 in 1 x 1 blocks: more tiles than DAG_MAX_REGISTERED");
    printf("%s\n", said[(count - 1) % 2]);
    dag_array *b = dag_array_zeros(DAG_F64, 64, 64, dag_blocks(2, 1));  /* 2048 tiles: within it */
    ok &= b != NULL;
    dag_array_free(b);
    dag_data one = dag_register(&x[0], 1);   /* with one span more, its last tile cannot be registered */
    b = dag_array_zeros(DAG_F64, 64, 64, dag_blocks(2, 1));
    ok &= b == NULL && strstr(said[(count - 2) % 2], "DAG_MAX_REGISTERED") &&
          strstr(said[(count - 1) % 2], "tile 2047 of its 2048 (64 x 64 in tiles of 2 x 1) could not be registered");
    printf("%s\n%s\n", said[(count - 2) % 2], said[(count - 1) % 2]);
    dag_data_unregister(one);
    dag_shutdown();
    return ok ? 0 : 1;
}
