/* datagen.c: the db-benchmark data sets (h2oai/db-benchmark, now
   duckdblabs/db-benchmark), written from the rules its R generators
   follow, with R's own random numbers, so that the files are the ones the
   benchmark publishes checksums for.

       datagen groupby N K DIR   DIR/G1_<N>_<K>_0_0.csv   (no missing values, random order)
       datagen join N DIR        DIR/J1_<N>_NA_0_0.csv and the three right tables

   R's generator, as these files need it: set.seed(108) scrambles the seed
   with 50 steps of a linear congruential generator (69069 s + 1) and fills
   the Mersenne Twister's 624 words with the next 624 steps (one word
   before them is its position); unif_rand() is a 32-bit draw times 2^-32
   (0 moved into (0, 1)); sample() since R 3.6 draws an index below n by
   rejection: ceil(log2 n) bits, taken 16 at a time from unif_rand()
   (one draw per 16 bits, one more when the bits are a multiple of 16),
   again while the value is not below n. Without replacement it keeps a
   pool and moves the last entry into the hole. round(x, 6) since R 4.0
   picks the closer of the two 6-decimal neighbours (ties to the even
   one). data.table's fwrite writes numbers in at most 15 significant
   digits, no quotes.

   The groupby table: id1, id2 of K strings "id%03d", id3 of N/K strings
   "id%010d", id4, id5 of 1..K, id6 of 1..N/K, v1 in 1..5, v2 in 1..15,
   v3 uniform in (0, 100) to 6 decimals, each column sampled in that order.
   The join tables: keys 1..n*1.1 shuffled and split into 90% common, 10%
   left-only and 10% right-only, for n = N/1e6, N/1e3 and N (id1, id2,
   id3); the left table (N rows) and the right ones (small N/1e6 rows,
   medium N/1e3, big N) draw each key column from their part so that every
   key appears, shuffled; id4..id6 are "id" and id1..id3 as text; v1, v2
   uniform to 6 decimals. The benchmark's join generator wants N >= 1e7;
   below that the small table keeps 10 rows (a development size, with no
   published checksums). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* >>R's random numbers */
enum { MT_N = 624, MT_M = 397 };
static uint32_t mt[MT_N];
static int mti;

static void r_set_seed(uint32_t seed) {
    for (int j = 0; j < 50; j++) seed = 69069 * seed + 1;
    seed = 69069 * seed + 1;   /* the first word is the position, set to MT_N */
    for (int j = 0; j < MT_N; j++) seed = 69069 * seed + 1, mt[j] = seed;
    mti = MT_N;
}
static uint32_t mt_next(void) {
    static const uint32_t mag[2] = { 0, 0x9908b0dfu };
    if (mti >= MT_N) {
        for (int k = 0; k < MT_N; k++) {
            uint32_t y = (mt[k] & 0x80000000u) | (mt[(k + 1) % MT_N] & 0x7fffffffu);
            mt[k] = mt[(k + MT_M) % MT_N] ^ (y >> 1) ^ mag[y & 1];
        }
        mti = 0;
    }
    uint32_t y = mt[mti++];
    y ^= y >> 11;
    y ^= (y << 7) & 0x9d2c5680u;
    y ^= (y << 15) & 0xefc60000u;
    return y ^ (y >> 18);
}
static double unif_rand(void) {
    double x = mt_next() * 2.3283064365386963e-10;
    return x <= 0 ? 0.5 * 2.328306437080797e-10 : x;
}
/* an index in [0, n), as R_unif_index */
static int64_t unif_index(int64_t n) {
    if (n <= 0) return 0;
    int bits = (int)ceil(log2((double)n));
    for (;;) {
        int64_t v = 0;
        for (int b = 0; b <= bits; b += 16) v = 65536 * v + (int64_t)floor(unif_rand() * 65536);
        v &= ((int64_t)1 << bits) - 1;
        if (v < n) return v;
    }
}
/* round(x, 6) for 0 < x < 100 */
static double round6(double x) {
    double x10 = 1e6 * x, i10 = floor(x10), xd = i10 / 1e6, xu = ceil(x10) / 1e6;
    double du = xu - x, dd = x - xd;
    return du < dd || (du == dd && fmod(i10, 2.0) == 1) ? xu : xd;
}

/* sample(n, size, TRUE): values 1..n */
static int32_t *sample_n(int64_t n, int64_t size) {
    int32_t *v = malloc(sizeof *v * (size_t)(size ? size : 1));
    for (int64_t i = 0; v && i < size; i++) v[i] = (int32_t)(unif_index(n) + 1);
    return v;
}
/* sample(x) of x[0..n): a shuffle, in place */
static void shuffle(int32_t *x, int64_t n) {
    int32_t *pool = malloc(sizeof *pool * (size_t)(n ? n : 1));
    memcpy(pool, x, sizeof *pool * (size_t)n);
    int64_t left = n;
    for (int64_t i = 0; i < n; i++) {
        int64_t j = unif_index(left);
        x[i] = pool[j];
        pool[j] = pool[--left];
    }
    free(pool);
}
static double *runif100(int64_t n) {
    double *v = malloc(sizeof *v * (size_t)(n ? n : 1));
    for (int64_t i = 0; v && i < n; i++) v[i] = round6(100 * unif_rand());
    return v;
}

/* >>writing rows, through one large buffer */
typedef struct out { FILE *f; char *b; size_t n; } out;
static void out_open(out *o, const char *dir, const char *name) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.csv", dir, name);
    o->f = fopen(path, "wb");
    o->b = malloc(1 << 20);
    o->n = 0;
    if (!o->f || !o->b) {
        fprintf(stderr, "datagen: cannot write %s\n", path);
        exit(1);
    }
    printf("writing %s\n", path);
}
static void out_flush(out *o) {
    fwrite(o->b, 1, o->n, o->f);
    o->n = 0;
}
static void out_text(out *o, const char *s, size_t n) {
    if (o->n + n > (1 << 20)) out_flush(o);
    memcpy(o->b + o->n, s, n);
    o->n += n;
}
static void out_close(out *o) {
    out_flush(o);
    if (fclose(o->f) != 0) exit(1);
    free(o->b);
}
typedef enum { INT, ID3, ID10, REAL, TEXT_ID } kind;   /* a number; "id%03d"; "id%010d"; a double; "id%d" */
typedef struct column { const char *name; kind k; const void *v; } column;
static void write_table(const char *dir, const char *name, const column *c, int ncols, int64_t rows) {
    out o;
    char cell[64];
    out_open(&o, dir, name);
    for (int j = 0; j < ncols; j++) out_text(&o, c[j].name, strlen(c[j].name)), out_text(&o, j + 1 < ncols ? "," : "\n", 1);
    for (int64_t i = 0; i < rows; i++)
        for (int j = 0; j < ncols; j++) {
            int n = 0;
            int32_t x = c[j].k == REAL ? 0 : ((const int32_t *)c[j].v)[i];
            switch (c[j].k) {
            case INT: n = snprintf(cell, sizeof cell, "%d", x); break;
            case ID3: n = snprintf(cell, sizeof cell, "id%03d", x); break;
            case ID10: n = snprintf(cell, sizeof cell, "id%010d", x); break;
            case TEXT_ID: n = snprintf(cell, sizeof cell, "id%d", x); break;
            default: n = snprintf(cell, sizeof cell, "%.15g", ((const double *)c[j].v)[i]); break;
            }
            cell[n++] = j + 1 < ncols ? ',' : '\n';
            out_text(&o, cell, (size_t)n);
        }
    out_close(&o);
}
/* 1e7 as "1e7", as the benchmark names its files */
static void pretty(char *s, size_t size, int64_t x) {
    int e = 0;
    while (x >= 10 && x % 10 == 0) x /= 10, e++;
    snprintf(s, size, "%llde%d", (long long)x, e);
}

/* >>groupby: G1_N_K_0_0 */
static int groupby(int64_t n, int64_t k, const char *dir) {
    r_set_seed(108);
    int32_t *id[6], *v1, *v2;
    int64_t kinds[6] = { k, k, n / k, k, k, n / k };
    for (int j = 0; j < 6; j++) id[j] = sample_n(kinds[j], n);
    v1 = sample_n(5, n), v2 = sample_n(15, n);
    double *v3 = runif100(n);
    char name[128], sn[32], sk[32];
    pretty(sn, sizeof sn, n), pretty(sk, sizeof sk, k);
    snprintf(name, sizeof name, "G1_%s_%s_0_0", sn, sk);
    column c[9] = { { "id1", ID3, id[0] }, { "id2", ID3, id[1] }, { "id3", ID10, id[2] }, { "id4", INT, id[3] }, { "id5", INT, id[4] },
                    { "id6", INT, id[5] }, { "v1", INT, v1 }, { "v2", INT, v2 }, { "v3", REAL, v3 } };
    int64_t s1 = 0;
    for (int64_t i = 0; i < n; i++) s1 += v1[i];
    printf("sum(v1) = %lld\n", (long long)s1);
    write_table(dir, name, c, 9, n);
    for (int j = 0; j < 6; j++) free(id[j]);
    free(v1), free(v2), free(v3);
    return 0;
}

/* >>join: J1_N_NA_0_0 and its right tables */
typedef struct keys { int32_t *v; int64_t x, l, r; } keys;   /* common v[0..x), left-only [x, x+l), right-only after */
static keys split_keys(int64_t n) {
    keys k;
    int64_t all = (int64_t)(n * 1.1);
    k.v = malloc(sizeof *k.v * (size_t)all);
    for (int64_t i = 0; i < all; i++) k.v[i] = (int32_t)(i + 1);
    shuffle(k.v, all);
    k.x = (int64_t)(n * 0.9), k.l = n - k.x, k.r = all - n;
    return k;
}
/* every key of one side (common, then left-only or right-only) at least once, then random ones, shuffled */
static int32_t *sample_all(const keys *k, bool left, int64_t size) {
    int64_t have = k->x + (left ? k->l : k->r), more = size > have ? size - have : 0;
    int32_t *v = malloc(sizeof *v * (size_t)(have + more));
    memcpy(v, k->v, sizeof *v * (size_t)k->x);
    memcpy(v + k->x, k->v + (left ? k->x : k->x + k->l), sizeof *v * (size_t)(have - k->x));
    for (int64_t i = 0; i < more; i++) v[have + i] = v[unif_index(have)];
    shuffle(v, have + more);
    return v;
}
static int join(int64_t n, const char *dir) {
    r_set_seed(108);
    int64_t sizes[3] = { n / 1000000 > 10 ? n / 1000000 : 10, n / 1000, n };   /* small, medium, big */
    keys k[3];
    for (int j = 0; j < 3; j++) k[j] = split_keys(sizes[j]);
    char sn[32], name[128];
    pretty(sn, sizeof sn, n);
    int32_t *id[3];
    for (int j = 0; j < 3; j++) id[j] = sample_all(&k[j], true, n);
    double *v = runif100(n);
    column x[7] = { { "id1", INT, id[0] }, { "id2", INT, id[1] }, { "id3", INT, id[2] }, { "id4", TEXT_ID, id[0] },
                    { "id5", TEXT_ID, id[1] }, { "id6", TEXT_ID, id[2] }, { "v1", REAL, v } };
    snprintf(name, sizeof name, "J1_%s_NA_0_0", sn);
    write_table(dir, name, x, 7, n);
    for (int j = 0; j < 3; j++) free(id[j]);
    free(v);
    for (int t = 0; t < 3; t++) {   /* the right tables: key columns 1..t+1 */
        char sr[32];
        for (int j = 0; j <= t; j++) id[j] = sample_all(&k[j], false, sizes[t]);
        v = runif100(sizes[t]);
        column c[7];
        int nc = 0;
        for (int j = 0; j <= t; j++) c[nc++] = (column){ x[j].name, INT, id[j] };
        for (int j = 0; j <= t; j++) c[nc++] = (column){ x[3 + j].name, TEXT_ID, id[j] };
        c[nc++] = (column){ "v2", REAL, v };
        pretty(sr, sizeof sr, sizes[t]);
        snprintf(name, sizeof name, "J1_%s_%s_0_0", sn, sr);
        write_table(dir, name, c, nc, sizes[t]);
        for (int j = 0; j <= t; j++) free(id[j]);
        free(v);
    }
    for (int j = 0; j < 3; j++) free(k[j].v);
    return 0;
}

int main(int argc, char **argv) {
    if (argc == 5 && !strcmp(argv[1], "groupby")) return groupby((int64_t)atof(argv[2]), (int64_t)atof(argv[3]), argv[4]);
    if (argc == 4 && !strcmp(argv[1], "join")) return join((int64_t)atof(argv[2]), argv[3]);
    fprintf(stderr, "usage: datagen groupby N K DIR | datagen join N DIR\n");
    return 2;
}
