#!/usr/bin/env python3
"""Distributed pivoted LU: dag.h's dag_array_getrf over MPI against ScaLAPACK's pdgetrf.

    python3 bench/lu_mpi.py [--rounds 3] [--n 4096 --n 8192] [--nb 256 --nb 512]

Every contender is its own mpirun, interleaved round by round (this machine's
speed drifts within minutes); each figure is the median and the best over the
rounds of this run. On 2 cores, 2/3 N^3 flops:
  dag.h 2x1      build/bench/lu_mpi, 2 ranks x 1 worker thread, tiles on the
                 1 x 2 grid (tile column j on rank j % 2), owner computes
  ScaLAPACK      pdgetrf (libscalapack-openmpi, build/bench/lu_scalapack),
                 2 ranks, the same 1 x 2 grid and block size
  dag.h 1x2thr   lu_mpi on 1 rank x 2 worker threads: what going through MPI
                 costs on one node (mpirun --bind-to none: with one rank
                 mpirun binds it to one core, which its two threads would share)
All use OpenBLAS's kernels with one thread each (OPENBLAS_NUM_THREADS=1, and
OPENBLAS_CORETYPE set for every side: the kernel that ran is printed) on the
same matrix (lu_elem in bench/lu_common.h). Each side checks its own factor
by solving A x = b (the scaled residual ||Ax - b|| / (||A|| ||x|| N eps),
which must stay under 30) and prints the sum of the factor and of the pivots:
every side's must agree.
"""
import argparse, os, statistics, subprocess, sys

from openblas_kernel import coretype

B = "build/bench"
MPIRUN = ["mpirun", "--allow-run-as-root", "--oversubscribe"]


def run(np_, prog, args, env):
    e = dict(os.environ, OPENBLAS_NUM_THREADS="1", **env)
    bind = ["--bind-to", "none"] if np_ == 1 else []
    cmd = MPIRUN + bind + ["-np", str(np_), prog] + [str(a) for a in args]
    out = subprocess.run(cmd, env=e, capture_output=True, text=True, timeout=900)
    if out.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)}: exit {out.returncode}: {(out.stdout + out.stderr).strip()[-400:]}")
    lines = out.stdout.strip().splitlines()
    first = lines[0].split()                     # name N NB PxQ seconds GFLOP/s threads=T
    check = dict(kv.split("=") for kv in lines[1].split()[1:] if "=" in kv)
    return float(first[5]), check


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--n", type=int, action="append", help="matrix size (repeatable; default 4096 and 8192)")
    ap.add_argument("--nb", type=int, action="append", help="tile and block size (repeatable; default 256 and 512)")
    a = ap.parse_args()
    sizes, blocks = a.n or [4096, 8192], a.nb or [256, 512]
    ct = coretype()
    env = {"OPENBLAS_CORETYPE": ct} if ct else {}
    contenders = [("dag.h 2x1", 2, f"{B}/lu_mpi", ["1", "2", "1"]),
                  ("ScaLAPACK", 2, f"{B}/lu_scalapack", ["1", "2"]),
                  ("dag.h 1x2thr", 1, f"{B}/lu_mpi", ["1", "1", "2"])]
    missing = [c for c in contenders if not os.access(c[2], os.X_OK)]
    for c in missing:
        print(f"skipped: {c[0]}: {c[2]} not built")
    contenders = [c for c in contenders if c not in missing]
    configs = [(n, nb) for n in sizes for nb in blocks]
    print(f"Distributed pivoted LU, 2 cores, OPENBLAS_CORETYPE={env.get('OPENBLAS_CORETYPE', '(unset)')}, one OpenBLAS "
          f"thread per task; 2x1: 2 ranks x 1 worker thread; {a.rounds} rounds, interleaved; "
          f"GFLOP/s = 2/3 N^3 / seconds", flush=True)
    rates, checks = {}, {}
    for rnd in range(a.rounds):
        for n, nb in configs:
            for name, np_, prog, extra in contenders:
                rate, check = run(np_, prog, [n, nb] + extra, env)
                rates.setdefault((n, nb, name), []).append(rate)
                checks.setdefault((n, nb, name), []).append(check)
        print(f"  round {rnd + 1}/{a.rounds} done", flush=True)
    names = [c[0] for c in contenders]
    agree = True
    for n, nb in configs:
        print(f"\nN={n} NB={nb}, 2 cores, GFLOP/s")
        print(f"{'contender':<14} {'median':>8} {'best':>8}  {'dag.h 2x1 / it (median)':>24}  residual  checksum, "
              f"pivots' sum  OpenBLAS kernel")
        ours = statistics.median(rates[(n, nb, "dag.h 2x1")]) if "dag.h 2x1" in names else None
        sums = []
        for name in names:
            r, c = rates[(n, nb, name)], checks[(n, nb, name)]
            med, best = statistics.median(r), max(r)
            ratio = f"{ours / med:.2f}x" if ours and name != "dag.h 2x1" else ""
            worst = max(float(x["residual"]) for x in c)
            sums += [(float(x["checksum"]), x["pivots"]) for x in c]
            print(f"{name:<14} {med:8.1f} {best:8.1f}  {ratio:>24}  {worst:8.3f}  {c[-1]['checksum']}, {c[-1]['pivots']}  "
                  f"{','.join(sorted({x['core'] for x in c}))}")
        same = len({p for _, p in sums}) == 1 and max(s for s, _ in sums) - min(s for s, _ in sums) <= \
            1e-9 * max(abs(s) for s, _ in sums)
        agree = agree and same
    print("\n(ratio = dag.h 2x1 median / the other's median: above 1 means dag.h is faster; residual: the largest "
          "of the rounds)")
    print("(the factors and pivots of every contender agree)" if agree else "THE FACTORS OR PIVOTS DIFFER")
    return 0 if agree else 1


if __name__ == "__main__":
    sys.exit(main())
