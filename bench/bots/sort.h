/* sort.h: BOTS sort (Cilk's cilksort), what its versions share (sort_dag.c,
   sort_omp.c each define sort_par); the serial kernels are here.

       sort(a, n):   sort(A)  sort(B)  sort(C)  sort(D)     the four quarters, tasks
                     ──────────── wait ────────────
                     merge(A,B → tmp1)   merge(C,D → tmp2)   tasks
                     ──────────── wait ────────────
                     merge(tmp1,tmp2 → a)                    in the body

       merge(x, y → dest): the middle of the longer run splits the shorter
                     one by binary search; both halves merge as tasks, wait

   Below SORT_QUICK elements a quarter is quicksorted (insertion sort below
   SORT_INSERTION), below SORT_MERGE a merge is serial: BOTS's cut-offs. The
   input is 0..N-1 shuffled; the check is BOTS's: a[i] == i.

       sort_dag [N]      N = 8,388,608 by default  (sort_gomp, sort_libomp alike) */
#ifndef SORT_H
#define SORT_H
#include "bots.h"

enum { SORT_QUICK = 2048, SORT_MERGE = 2048, SORT_INSERTION = 20 };

typedef long elm;

/* A merge of the runs [lo1, hi1] and [lo2, hi2] (inclusive) into dest. */
typedef struct sort_merge {
    elm *lo1, *hi1, *lo2, *hi2, *dest;
} sort_merge;

void sort_par(elm *a, elm *tmp, long n);

static inline elm sort_median3(elm a, elm b, elm c) {
    if (a < b) return b < c ? b : (a < c ? c : a);
    return b > c ? b : (a > c ? c : a);
}

/* Hoare's partition of [lo, hi] around the median of three; returns the
   last element of the lower part. */
static elm *sort_partition(elm *lo, elm *hi) {
    elm pivot = sort_median3(*lo, *hi, lo[(hi - lo) / 2]);
    elm *l = lo, *h = hi;
    for (;;) {
        while (*h > pivot) h--;
        while (*l < pivot) l++;
        if (l >= h) break;
        elm t = *h;
        *h-- = *l;
        *l++ = t;
    }
    return h < hi ? h : h - 1;
}

static void sort_insertion(elm *lo, elm *hi) {
    for (elm *q = lo + 1; q <= hi; q++) {
        elm v = *q, *p = q - 1;
        for (; p >= lo && *p > v; p--) p[1] = *p;
        p[1] = v;
    }
}

/* quicksort of [lo, hi], the larger side by iteration */
static void sort_quick(elm *lo, elm *hi) {
    while (hi - lo >= SORT_INSERTION) {
        elm *p = sort_partition(lo, hi);
        sort_quick(lo, p);
        lo = p + 1;
    }
    sort_insertion(lo, hi);
}

static void sort_merge_serial(sort_merge m) {
    elm *a = m.lo1, *b = m.lo2, *d = m.dest;
    while (a <= m.hi1 && b <= m.hi2) *d++ = *a < *b ? *a++ : *b++;
    while (a <= m.hi1) *d++ = *a++;
    while (b <= m.hi2) *d++ = *b++;
}

/* The last element of [lo, hi] that is <= v (lo - 1 if none). */
static elm *sort_split_point(elm v, elm *lo, elm *hi) {
    while (lo <= hi) {
        elm *mid = lo + (hi - lo) / 2;
        if (*mid <= v) lo = mid + 1;
        else hi = mid - 1;
    }
    return lo - 1;
}

/* One step of the parallel merge: a small one is done here (returns 0);
   otherwise the middle element of the longer run goes to its place in dest
   and half[0], half[1] are the two merges left (returns 1). */
static int sort_merge_split(sort_merge m, sort_merge half[2]) {
    if (m.hi2 - m.lo2 > m.hi1 - m.lo1) {   /* the first run is the longer */
        elm *lo = m.lo1, *hi = m.hi1;
        m.lo1 = m.lo2, m.hi1 = m.hi2, m.lo2 = lo, m.hi2 = hi;
    }
    if (m.hi2 - m.lo2 < SORT_MERGE) {
        sort_merge_serial(m);
        return 0;
    }
    elm *mid1 = m.lo1 + (m.hi1 - m.lo1 + 1) / 2;
    elm *mid2 = sort_split_point(*mid1, m.lo2, m.hi2);
    elm *at = m.dest + (mid1 - m.lo1) + (mid2 + 1 - m.lo2);
    *at = *mid1;
    half[0] = (sort_merge){m.lo1, mid1 - 1, m.lo2, mid2, m.dest};
    half[1] = (sort_merge){mid1 + 1, m.hi1, mid2 + 1, m.hi2, at + 1};
    return 1;
}

/* The quarters of a (and of tmp) for sort(a, n): where quarter q starts, and
   the merges of the second step and of the last. */
static inline elm *sort_quarter(elm *a, long n, int q) { return a + q * (n / 4); }
static inline long sort_quarter_len(long n, int q) { return q < 3 ? n / 4 : n - 3 * (n / 4); }
static inline sort_merge sort_pair(elm *a, elm *tmp, long n, int pair) {
    elm *x = sort_quarter(a, n, 2 * pair), *y = sort_quarter(a, n, 2 * pair + 1);
    return (sort_merge){x, y - 1, y, y + sort_quarter_len(n, 2 * pair + 1) - 1, sort_quarter(tmp, n, 2 * pair)};
}
static inline sort_merge sort_last(elm *a, elm *tmp, long n) {
    elm *half = sort_quarter(tmp, n, 2);
    return (sort_merge){tmp, half - 1, half, tmp + n - 1, a};
}

/* 0..n-1 shuffled by BOTS's generator (a linear congruence) */
static void sort_input(elm *a, long n) {
    unsigned long r = 1;
    for (long i = 0; i < n; i++) a[i] = i;
    for (long i = 0; i < n; i++) {
        r = r * 1103515245 + 12345;
        long j = (long)(r % (unsigned long)n);
        elm t = a[i];
        a[i] = a[j];
        a[j] = t;
    }
}

static inline int sort_main(int argc, char **argv) {
    long n = bots_arg(argc, argv, 1, 8L << 20, "[N] (N >= 4)");
    if (n < 4) bots_usage(argv[0], "[N] (N >= 4)");
    elm *a = (elm *)bots_alloc((size_t)n * sizeof *a), *tmp = (elm *)bots_alloc((size_t)n * sizeof *tmp);
    sort_input(a, n);
    double t0 = bots_now();
    sort_par(a, tmp, n);
    double t = bots_now() - t0;
    long bad = 0;
    for (long i = 0; i < n; i++) bad += a[i] != i;
    free(a);
    free(tmp);
    return bots_report(t, bad == 0, "n=%ld misplaced=%ld", n, bad);
}
#endif
