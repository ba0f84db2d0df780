#!/usr/bin/env python3
"""Tiled Cholesky: dag_array.h against OpenBLAS's dpotrf, OpenMP tasks and StarPU.

    python3 bench/cholesky.py [--rounds 5] [--quick] [--n 4096 ...]
    python3 bench/cholesky.py --policies [--rounds 5]   dag.h under each wait policy

Each contender runs as its own process, interleaved round by round (this
machine's speed drifts within minutes); each figure is the best and the median
over the rounds of this run. Contenders, on 2 cores:
  dag.h        dag_array_potrf in place on the column-major matrix (dag_array_wrap),
               as OpenBLAS's side gets it: the updates go a column panel at a time
               (taller dgemm calls on the same tiles)
  dag.h tiles  dag_array_potrf on an array of its own tiles: tile by tile, the
               algorithm the libgomp and StarPU sides run (runtime against runtime)
  OpenBLAS     LAPACKE_dpotrf on the whole matrix, OpenBLAS with 2 threads
  libgomp      the tile algorithm as OpenMP tasks with depend and priority
  libgomp panels  dag.h's panel algorithm as OpenMP tasks, in place on the matrix
               (a dependence token per tile, depend iterators): the same work as
               the dag.h side, so dag.h against it is runtime against runtime
  StarPU       the tile algorithm with starpu_task_insert (dmdas, calibrated)
All use OpenBLAS's kernels, one thread inside each task. Also measured in the same run: OpenBLAS
dgemm with 2 threads at N=4096, and with 1 thread on one tile (the 2-core
tile-dgemm rate is twice that), repeated on one tile (operands in cache) and
on tiles drawn at random from 128 MiB of them (operands from L3 or memory,
as in a factorisation). OPENBLAS_CORETYPE is set for every side (this
OpenBLAS takes this virtual CPU for Prescott otherwise); the kernel that ran is
printed. The factors must agree: every side prints the sum of L's lower triangle.
"""
import argparse, os, statistics, subprocess, sys

from openblas_kernel import coretype

B = "build/bench"


def run(cmd, env):
    e = dict(os.environ, **env)
    out = subprocess.run(cmd, env=e, capture_output=True, text=True, timeout=900)
    if out.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)}: exit {out.returncode}: {out.stderr.strip()[:300]}")
    line = out.stdout.strip().splitlines()[-1]
    return dict(kv.split("=") for kv in line.split())


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--quick", action="store_true", help="one round, N=4096 only")
    ap.add_argument("--n", type=int, action="append", help="only this N (repeatable)")
    ap.add_argument("--policies", action="store_true", help="dag.h under DAG_WAIT_POLICY default, active, passive")
    a = ap.parse_args()
    if a.policies:
        return policies(a.rounds)
    rounds = 1 if a.quick else a.rounds
    configs = [(4096, 256), (4096, 512)] + ([] if a.quick else [(8192, 256), (8192, 512)])
    configs = [(n, nb) for n, nb in configs if not a.n or n in a.n]
    if not configs:
        ap.error("no configuration has that N (4096 or 8192)")
    sizes = sorted({n for n, _ in configs})
    tiles = sorted({nb for _, nb in configs})
    ct = coretype()
    env = {"OPENBLAS_CORETYPE": ct} if ct else {}
    env.update({"OMP_NUM_THREADS": "2", "OMP_MAX_TASK_PRIORITY": "100000", "STARPU_NCPU": "2",
                "STARPU_SCHED": "dmdas", "STARPU_SILENT": "1", "DAG_NUM_THREADS": "2"})
    gf = {}      # (contender, n, nb) -> [gflops]
    peak = {}    # "dgemm2" or ("tile1", nb) -> [gflops]
    sums = {}    # (n) -> {contender: checksum}
    cores = set()

    def add(key, r):
        gf.setdefault(key, []).append(float(r["gflops"]))
        sums.setdefault(key[1], {})[key[0] + str(key[2])] = float(r["checksum"])
        cores.add(r["core"])

    print(f"Tiled Cholesky, 2 cores, {rounds} interleaved rounds, OPENBLAS_CORETYPE={ct or '(unset)'}", flush=True)
    for rnd in range(rounds):
        for nb in tiles:
            r = run([f"{B}/cholesky", "peak", "4096", str(nb)], env)
            peak.setdefault("dgemm2", []).append(float(r["dgemm2"]))
            peak.setdefault(("tile1", nb), []).append(float(r["tile1"]))
            peak.setdefault(("cold1", nb), []).append(float(r["tile1cold"]))
            cores.add(r["core"])
        for n in sizes:
            add(("OpenBLAS", n, 0), run([f"{B}/cholesky", "openblas", str(n)], env))
        for n, nb in configs:
            add(("dag.h", n, nb), run([f"{B}/cholesky", "dag", str(n), str(nb)], env))
            add(("dag.h tiles", n, nb), run([f"{B}/cholesky", "dagtiles", str(n), str(nb)], env))
            add(("libgomp", n, nb), run([f"{B}/cholesky_omp", str(n), str(nb)], env))
            add(("libgomp panels", n, nb), run([f"{B}/cholesky_omp", str(n), str(nb), "panels"], env))
            add(("StarPU", n, nb), run([f"{B}/cholesky_starpu", str(n), str(nb)], env))
        print(f"  round {rnd + 1}/{rounds} done", flush=True)

    def bm(xs):
        return max(xs), statistics.median(xs)

    print(f"\nOpenBLAS kernel that ran: {', '.join(sorted(cores))}")
    d2 = bm(peak["dgemm2"])
    print(f"dgemm, 2 threads, N=4096: {d2[0]:.1f} / {d2[1]:.1f} GFLOP/s (best / median)")
    for nb in tiles:
        t = bm(peak[("tile1", nb)])
        c = bm(peak[("cold1", nb)])
        print(f"dgemm, 1 thread, one {nb} tile: {t[0]:.1f} / {t[1]:.1f}; 2-core tile rate {2 * t[1]:.1f}; "
              f"on tiles from 128 MiB: {c[0]:.1f} / {c[1]:.1f}, 2-core {2 * c[1]:.1f}")
    print("\nGFLOP/s (best / median), N^3/3 flops")
    print(f"{'N':>6} {'tile':>5} {'dag.h':>14} {'dag.h tiles':>14} {'OpenBLAS dpotrf':>16} {'libgomp':>14} "
          f"{'libgomp panels':>15} {'StarPU':>14}  dag.h median vs: OpenBLAS, libgomp, libgomp panels, StarPU; "
          f"dag.h tiles vs libgomp, StarPU; dag.h % of 2-core tile dgemm (repeated, from 128 MiB)")
    ok = True
    for n, nb in configs:
        d, o = bm(gf[("dag.h", n, nb)]), bm(gf[("OpenBLAS", n, 0)])
        t = bm(gf[("dag.h tiles", n, nb)])
        g, s = bm(gf[("libgomp", n, nb)]), bm(gf[("StarPU", n, nb)])
        gp = bm(gf[("libgomp panels", n, nb)])
        rate = 2 * statistics.median(peak[("tile1", nb)])
        cold = 2 * statistics.median(peak[("cold1", nb)])
        print(f"{n:>6} {nb:>5} {d[0]:>6.1f} / {d[1]:<5.1f} {t[0]:>6.1f} / {t[1]:<5.1f} {o[0]:>7.1f} / {o[1]:<6.1f} "
              f"{g[0]:>6.1f} / {g[1]:<5.1f} {gp[0]:>7.1f} / {gp[1]:<5.1f} {s[0]:>6.1f} / {s[1]:<5.1f}  "
              f"{d[1] / o[1]:.2f}x, {d[1] / g[1]:.2f}x, {d[1] / gp[1]:.2f}x, {d[1] / s[1]:.2f}x; "
              f"{t[1] / g[1]:.2f}x, {t[1] / s[1]:.2f}x; "
              f"{100 * d[1] / rate:.0f}%, {100 * d[1] / cold:.0f}%")
    for n, by in sums.items():
        ref = next(iter(by.values()))
        for who, v in by.items():
            if abs(v - ref) > 1e-9 * abs(ref):
                print(f"MISMATCH at N={n}: {who} checksum {v!r} vs {ref!r}")
                ok = False
    print("(ratios above 1: dag.h faster; the factors of every contender agree)" if ok else "FACTORS DISAGREE")
    return 0 if ok else 1


def policies(rounds):
    """dag.h's Cholesky (N=4096) under each wait policy, interleaved round by round."""
    ct = coretype()
    base = {"OPENBLAS_CORETYPE": ct} if ct else {}
    base["DAG_NUM_THREADS"] = "2"
    kinds = ["default", "active", "passive"]
    gf = {}
    for _ in range(rounds):
        for nb in (256, 512):
            for k in kinds:
                r = run([f"{B}/cholesky", "dag", "4096", str(nb)], dict(base, DAG_WAIT_POLICY=k))
                gf.setdefault((nb, k), []).append(float(r["gflops"]))
    print(f"dag.h Cholesky N=4096 on 2 cores by wait policy, GFLOP/s median of {rounds} interleaved rounds "
          f"(OPENBLAS_CORETYPE={ct or '(unset)'})")
    print(f"{'tile':>5}" + "".join(f"{k:>12}" for k in kinds) + "   active / default, passive / default")
    for nb in (256, 512):
        m = {k: statistics.median(gf[(nb, k)]) for k in kinds}
        print(f"{nb:>5}" + "".join(f"{m[k]:>12.1f}" for k in kinds) +
              f"   {m['active'] / m['default']:.2f}x, {m['passive'] / m['default']:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
