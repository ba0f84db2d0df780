#!/usr/bin/env python3
"""Pivoted LU: dag_array_getrf against OpenBLAS's own dgetrf (LAPACKE), in one run;
with --qr, QR: dag_array_geqrf against dgeqrf too; with --tall, the QR of tall
matrices: dag_array_geqrf and dag_array_caqr (communication-avoiding, in domains)
against dgeqrf.

    python3 bench/lu.py [--rounds 3] [--quick] [--n 4096 ...] [--qr] [--tall]

Each contender runs as its own process, interleaved round by round (this
machine's speed drifts within minutes); each figure is the best and the
median over the rounds. Contenders, on 2 cores, 2/3 N^3 flops:
  dag.h        dag_array_getrf in place on the column-major matrix (dag_array_wrap):
               the panel and each column block's row moves are spans of the matrix,
               the updates a chunk of rows at a time
  dag.h tiles  dag_array_getrf on an array of its own tiles (the panel copied out
               and back, the rows moved tile by tile)
  OpenBLAS     LAPACKE_dgetrf on the whole matrix, OpenBLAS with 2 threads
  dgemm        cblas_dgemm of two N x N matrices, OpenBLAS with 2 threads (2 N^3
               flops): the rate of the kernel every side's updates are made of, the
               ceiling of any LU built on OpenBLAS's kernels
All use OpenBLAS's kernels (one thread inside each of dag.h's tasks). The factors
and pivots must agree: every side prints a checksum of the factor and the pivots' sum.
"""
import argparse, os, statistics, subprocess, sys

from openblas_kernel import coretype

B = "build/bench"


def run(cmd, env):
    out = subprocess.run(cmd, env=dict(os.environ, **env), capture_output=True, text=True, timeout=900)
    if out.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)}: exit {out.returncode}: {out.stderr.strip()[:300]}")
    return dict(kv.split("=") for kv in out.stdout.strip().splitlines()[-1].split())


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--quick", action="store_true", help="one round, N=4096 only")
    ap.add_argument("--n", type=int, action="append", help="only this N (repeatable)")
    ap.add_argument("--qr", action="store_true", help="also QR: dag_array_geqrf (wrapped) against LAPACKE_dgeqrf")
    ap.add_argument("--tall", action="store_true", help="only tall QR: dag_array_geqrf and dag_array_caqr against dgeqrf")
    a = ap.parse_args()
    if a.tall:
        return tall(a)
    rounds = 1 if a.quick else a.rounds
    configs = [(4096, 256), (4096, 512)] + ([] if a.quick else [(8192, 256), (8192, 512)])
    configs = [(n, nb) for n, nb in configs if not a.n or n in a.n]
    ct = coretype()
    env = {"OPENBLAS_CORETYPE": ct} if ct else {}
    env.update({"DAG_NUM_THREADS": "2"})
    gf, sums, qr_sums = {}, {}, {}
    print(f"Pivoted LU, 2 cores, {rounds} interleaved rounds, OPENBLAS_CORETYPE={ct or '(unset)'}", flush=True)
    for rnd in range(rounds):
        for n in sorted({n for n, _ in configs}):
            sides = [("OpenBLAS", 0, [f"{B}/lu", "openblas", str(n)]), ("dgemm", 0, [f"{B}/lu", "gemm", str(n)])]
            for nn, nb in configs:
                if nn == n:
                    sides += [("dag.h", nb, [f"{B}/lu", "dag", str(n), str(nb)]),
                              ("dag.h tiles", nb, [f"{B}/lu", "dagtiles", str(n), str(nb)])]
            if a.qr:
                sides += [("QR OpenBLAS", 0, [f"{B}/lu", "qropenblas", str(n)])]
                sides += [("QR dag.h", nb, [f"{B}/lu", "qrdag", str(n), str(nb)]) for nn, nb in configs if nn == n]
            for name, nb, cmd in sides:
                r = run(cmd, env)
                gf.setdefault((name, n, nb), []).append(float(r["gflops"]))
                if name == "dgemm":
                    continue
                if name.startswith("QR"):   # R's |diagonal| summed: equal to rounding
                    qr_sums.setdefault(n, []).append(float(r["checksum"]))
                else:
                    sums.setdefault(n, set()).add((r["checksum"], r["pivots"]))
        print(f"  round {rnd + 1}/{rounds} done", flush=True)
    fmt = lambda k: f"{max(gf[k]):6.1f} / {statistics.median(gf[k]):6.1f}"
    print("\nGFLOP/s (best / median), 2/3 N^3 flops")
    print(f"{'N':>6} {'tile':>5}  {'dag.h':>15}  {'dag.h tiles':>15}  {'OpenBLAS dgetrf':>15}  {'dgemm (ceiling)':>15}"
          f"  dag.h median vs OpenBLAS, vs dgemm")
    for n, nb in configs:
        ob, d, t, g = ("OpenBLAS", n, 0), ("dag.h", n, nb), ("dag.h tiles", n, nb), ("dgemm", n, 0)
        ratio = statistics.median(gf[d]) / statistics.median(gf[ob])
        ceiling = statistics.median(gf[d]) / statistics.median(gf[g])
        print(f"{n:>6} {nb:>5}  {fmt(d)}  {fmt(t)}  {fmt(ob)}  {fmt(g)}  {ratio:.2f}x, {ceiling:.2f}")
    if a.qr:
        print("\nQR, GFLOP/s (best / median), 4/3 N^3 flops")
        print(f"{'N':>6} {'tile':>5}  {'dag.h':>15}  {'OpenBLAS dgeqrf':>15}  dag.h median vs OpenBLAS")
        for n, nb in configs:
            ob, d = ("QR OpenBLAS", n, 0), ("QR dag.h", n, nb)
            print(f"{n:>6} {nb:>5}  {fmt(d)}  {fmt(ob)}  {statistics.median(gf[d]) / statistics.median(gf[ob]):.2f}x")
    agree = all(len(v) == 1 for v in sums.values()) and all(
        max(v) - min(v) <= 1e-9 * max(v) for v in qr_sums.values())
    print("(the factors and pivots of every contender agree)" if agree else "THE FACTORS DIFFER: " + repr(sums))
    return 0 if agree else 1


# Tall QR: (m, n, tile, CAQR's domains); 2 m n^2 - 2/3 n^3 flops. "auto": those dag_array_caqr(a, 0)
# chooses (a domain for every 4 tile rows a tile column, 1 to 16: here 16, 16 and 2)
TALL = [(65536, 256, 256, "auto"), (65536, 1024, 256, "auto"), (16384, 2048, 256, "auto")]


def tall(a):
    rounds = 1 if a.quick else a.rounds
    ct = coretype()
    env = {"OPENBLAS_CORETYPE": ct} if ct else {}
    env.update({"DAG_NUM_THREADS": "2"})
    gf, sums = {}, {}
    print(f"Tall QR, 2 cores, {rounds} interleaved rounds, OPENBLAS_CORETYPE={ct or '(unset)'}", flush=True)
    for rnd in range(rounds):
        for m, n, nb, p in TALL:
            sides = [("OpenBLAS", [f"{B}/lu", "tallqropenblas", str(m), str(n)]),
                     ("geqrf", [f"{B}/lu", "tallqrdag", str(m), str(n), str(nb), "0"]),
                     ("caqr", [f"{B}/lu", "tallqrdag", str(m), str(n), str(nb), str(p)])]
            for name, cmd in sides:
                r = run(cmd, env)
                gf.setdefault((name, m, n), []).append(float(r["gflops"]))
                sums.setdefault((m, n), []).append(float(r["checksum"]))
        print(f"  round {rnd + 1}/{rounds} done", flush=True)
    fmt = lambda k: f"{max(gf[k]):6.1f} / {statistics.median(gf[k]):6.1f}"
    print("\nGFLOP/s (best / median), 2 m n^2 - 2/3 n^3 flops; dag.h on arrays of its own tiles")
    print(f"{'m':>6} {'n':>5} {'tile':>5} {'domains':>7}  {'dag_array_geqrf':>15}  {'dag_array_caqr':>15}  {'OpenBLAS dgeqrf':>15}"
          "  caqr / OpenBLAS (medians)")
    for m, n, nb, p in TALL:
        ob, g, c = ("OpenBLAS", m, n), ("geqrf", m, n), ("caqr", m, n)
        print(f"{m:>6} {n:>5} {nb:>5} {p:>7}  {fmt(g)}  {fmt(c)}  {fmt(ob)}  "
              f"{statistics.median(gf[c]) / statistics.median(gf[ob]):.2f}x")
    agree = all(max(v) - min(v) <= 1e-9 * max(v) for v in sums.values())
    print("(R's |diagonal| agrees on every side)" if agree else "R DIFFERS: " + repr(sums))
    return 0 if agree else 1


if __name__ == "__main__":
    sys.exit(main())
