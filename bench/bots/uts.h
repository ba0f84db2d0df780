/* uts.h: BOTS uts (the Unbalanced Tree Search), what its versions share
   (uts_dag.c, uts_omp.c each define uts_par): the tree and its SHA-1
   random numbers.

       search(node):  child 0 ── search(child 0)       a task per node: the parent
                      child 1 ── search(child 1)       makes each child (its SHA-1
                      ...                              state, its number of children),
                      ──────── wait ────────           spawns its search, waits for
                      1 + the children's sizes         all and adds up

   A binomial tree (BOTS's omp-tasks uts, T3-like): the root has B0
   children, every other node M children with probability Q, none
   otherwise; with Q * M just below 1 the tree is narrow and deep (BOTS's
   test input, 2000 0.124875 8 42: 4,112,897 nodes, 1,572 levels), so the
   waits nest thousands deep. A node's random numbers are the SHA-1 of its
   parent's state and its index, so the tree is the same however it is
   walked. The check: the size against SIZE where given (the size BOTS's
   input file states), else against the serial walk.

       uts_dag B0 Q M SEED [SIZE]      e.g. 2000 0.124875 8 42 4112897
                                       (uts_gomp, uts_libomp alike) */
#ifndef UTS_H
#define UTS_H
#include "bots.h"
#include <stdint.h>

enum { UTS_MAX_CHILDREN = 100 };   /* below the root */

typedef struct uts_node {
    int height, children;
    unsigned char state[20];   /* the SHA-1 digest that seeds its numbers */
} uts_node;

unsigned long long uts_par(uts_node root);

static inline uint32_t uts_rotl(uint32_t x, int n) { return (x << n) | (x >> (32 - n)); }

/* SHA-1 (FIPS 180-4) of a message of at most 55 bytes: one block */
static void uts_sha1(const unsigned char *msg, size_t len, unsigned char digest[20]) {
    uint32_t w[80], h[5] = {0x67452301u, 0xEFCDAB89u, 0x98BADCFEu, 0x10325476u, 0xC3D2E1F0u};
    unsigned char block[64] = {0};
    memcpy(block, msg, len);
    block[len] = 0x80;
    block[62] = (unsigned char)((len * 8) >> 8);
    block[63] = (unsigned char)(len * 8);
    for (int t = 0; t < 16; t++)
        w[t] = (uint32_t)block[4 * t] << 24 | (uint32_t)block[4 * t + 1] << 16 | (uint32_t)block[4 * t + 2] << 8 |
               block[4 * t + 3];
    for (int t = 16; t < 80; t++) w[t] = uts_rotl(w[t - 3] ^ w[t - 8] ^ w[t - 14] ^ w[t - 16], 1);
    uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4];
    for (int t = 0; t < 80; t++) {
        uint32_t f, k;
        if (t < 20) f = (b & c) | (~b & d), k = 0x5A827999u;
        else if (t < 40) f = b ^ c ^ d, k = 0x6ED9EBA1u;
        else if (t < 60) f = (b & c) | (b & d) | (c & d), k = 0x8F1BBCDCu;
        else f = b ^ c ^ d, k = 0xCA62C1D6u;
        uint32_t next = uts_rotl(a, 5) + f + e + k + w[t];
        e = d, d = c, c = uts_rotl(b, 30), b = a, a = next;
    }
    h[0] += a, h[1] += b, h[2] += c, h[3] += d, h[4] += e;
    for (int i = 0; i < 5; i++)
        for (int j = 0; j < 4; j++) digest[4 * i + j] = (unsigned char)(h[i] >> (24 - 8 * j));
}

static inline void uts_be32(unsigned char *p, uint32_t v) {
    p[0] = (unsigned char)(v >> 24), p[1] = (unsigned char)(v >> 16), p[2] = (unsigned char)(v >> 8), p[3] = (unsigned char)v;
}

/* the tree's shape */
typedef struct uts_tree {
    double b0, q;
    int m, seed;
} uts_tree;
static uts_tree uts_shape;

static int uts_children(const uts_node *n) {
    if (n->height == 0) return (int)uts_shape.b0;
    uint32_t r = ((uint32_t)n->state[16] << 24 | (uint32_t)n->state[17] << 16 | (uint32_t)n->state[18] << 8 |
                  n->state[19]) & 0x7fffffffu;
    int k = (double)r / 2147483648.0 < uts_shape.q ? uts_shape.m : 0;
    return k < UTS_MAX_CHILDREN ? k : UTS_MAX_CHILDREN;
}

static uts_node uts_root(void) {
    unsigned char seed[20] = {0};
    uts_be32(seed + 16, (uint32_t)uts_shape.seed);
    uts_node r;
    r.height = 0;
    uts_sha1(seed, 20, r.state);
    r.children = uts_children(&r);
    return r;
}

/* child i of p: its state is the SHA-1 of p's state and i */
static uts_node uts_child(const uts_node *p, int i) {
    unsigned char msg[24];
    memcpy(msg, p->state, 20);
    uts_be32(msg + 20, (uint32_t)i);
    uts_node c;
    c.height = p->height + 1;
    uts_sha1(msg, 24, c.state);
    c.children = uts_children(&c);
    return c;
}

static unsigned long long uts_serial(uts_node n) {
    unsigned long long size = 1;
    for (int i = 0; i < n.children; i++) size += uts_serial(uts_child(&n, i));
    return size;
}

static inline int uts_main(int argc, char **argv) {
    const char *usage = "B0 Q M SEED [SIZE]   (e.g. 2000 0.124875 8 42 4112897)";
    if (argc < 5) bots_usage(argv[0], usage);
    char *end;
    uts_shape.b0 = strtod(argv[1], &end);
    if (*end || uts_shape.b0 < 1) bots_usage(argv[0], usage);
    uts_shape.q = strtod(argv[2], &end);
    if (*end || uts_shape.q < 0 || uts_shape.q > 1) bots_usage(argv[0], usage);
    uts_shape.m = (int)bots_arg(argc, argv, 3, 0, usage);
    uts_shape.seed = (int)bots_arg(argc, argv, 4, 0, usage);
    unsigned long long want = (unsigned long long)bots_arg(argc, argv, 5, 0, usage);
    uts_node root = uts_root();
    double t0 = bots_now();
    unsigned long long got = uts_par(root);
    double t = bots_now() - t0;
    if (!want) want = uts_serial(root);
    return bots_report(t, got == want, "nodes=%llu expected=%llu", got, want);
}
#endif
