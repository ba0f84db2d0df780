#!/usr/bin/env python3
"""Distributed tile Cholesky: dag.h over MPI against ScaLAPACK's pdpotrf and StarPU-MPI.

    python3 bench/cholesky_mpi.py [--rounds 3] [--n 4096 --n 8192] [--nb 256]

Every contender is its own mpirun, interleaved round by round (this machine's
speed drifts within minutes); each figure is the median and the best over the
rounds of this run. On 2 cores:
  dag.h 2x1      build/bench/cholesky_mpi, 2 ranks x 1 worker thread, tiles on
                 the 1 x 2 grid, owner computes
  dag.h 1x2thr   the same program on 1 rank x 2 worker threads: what going
                 through MPI costs on one node (mpirun --bind-to none: with one
                 rank mpirun binds it to one core, which its two threads would share)
  ScaLAPACK      pdpotrf (libscalapack-openmpi), 2 ranks, the same 1 x 2 grid
  StarPU-MPI     starpu_mpi_task_insert of the tile algorithm, 2 ranks x 1
                 worker, the same grid
All use OpenBLAS's kernels with one thread each (OPENBLAS_CORETYPE set for
every side; the kernel that ran is printed) and the same matrix; every side
prints the sum of L's lower triangle, which must agree, and a residual.
Traffic: the bytes and messages each rank sent in the timed factorisation
(dag.h counts its own; StarPU-MPI's STARPU_COMM_STATS), against the lower
bound of the algorithm on the grid (bench/cholesky_comm.py).
"""
import argparse, os, re, statistics, subprocess, sys

from openblas_kernel import coretype

B = "build/bench"
MPIRUN = ["mpirun", "--allow-run-as-root", "--oversubscribe"]


def run(np_, prog, args, env):
    e = dict(os.environ, OPENBLAS_NUM_THREADS="1", STARPU_NCPU="1", STARPU_SILENT="1", **env)
    bind = ["--bind-to", "none"] if np_ == 1 else []
    out = subprocess.run(MPIRUN + bind + ["-np", str(np_), prog] + [str(a) for a in args], env=e, capture_output=True,
                         text=True, timeout=1800)
    if out.returncode != 0:
        raise RuntimeError(f"{prog} {args}: exit {out.returncode}: {(out.stdout + out.stderr).strip()[-400:]}")
    lines = out.stdout.strip().splitlines()
    first = lines[0].split()                     # name N NB PxQ seconds GFLOP/s ...
    check = dict(kv.split("=") for kv in lines[1].split()[1:3])
    sent = [(int(m.group(1)), int(m.group(2)) if m.group(2) else None)
            for m in (re.search(r"sent (\d+) bytes.*?(?:in (\d+) messages)?$", l) for l in lines[2:]) if m]
    return float(first[5]), check, sent


def bound(n, nb, p, q):
    out = subprocess.run([sys.executable, "bench/cholesky_comm.py", str(n), str(nb), str(p), str(q)],
                         capture_output=True, text=True, check=True).stdout.splitlines()
    rows = [l.split() for l in out if re.match(r"\s*\d+\s", l)]
    return [(int(r[3]), int(r[2])) for r in rows]   # (bytes_sent, msgs_sent) per rank


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--n", type=int, action="append", help="matrix size (repeatable; default 4096 and 8192)")
    ap.add_argument("--nb", type=int, default=256)
    a = ap.parse_args()
    sizes = a.n or [4096, 8192]
    env = {"OPENBLAS_CORETYPE": coretype()} if coretype() else {}
    contenders = [("dag.h 2x1", 2, f"{B}/cholesky_mpi", ["1", "2", "1"]),
                  ("dag.h 1x2thr", 1, f"{B}/cholesky_mpi", ["1", "1", "2"]),
                  ("ScaLAPACK", 2, f"{B}/cholesky_scalapack", ["1", "2"]),
                  ("StarPU-MPI", 2, f"{B}/cholesky_starpu_mpi", ["1", "2"])]
    missing = [c for c in contenders if not os.access(c[2], os.X_OK)]
    for c in missing:
        print(f"skipped: {c[0]}: {c[2]} not built")
    contenders = [c for c in contenders if c not in missing]
    print(f"OpenBLAS kernels: OPENBLAS_CORETYPE={env.get('OPENBLAS_CORETYPE', '(unset)')}, one thread per task; "
          f"{a.rounds} rounds, interleaved; GFLOP/s = N^3/3 / seconds")
    for n in sizes:
        rates = {c[0]: [] for c in contenders}
        checks, traffic = {}, {}
        for _ in range(a.rounds):
            for name, np_, prog, extra in contenders:
                rate, check, sent = run(np_, prog, [n, a.nb] + extra, env)
                rates[name].append(rate)
                checks[name] = check
                traffic[name] = sent
        print(f"\nN={n} NB={a.nb}, 2 cores")
        print(f"{'contender':<14} {'median':>8} {'best':>8}  {'dag.h 2x1 / it (median)':>24}  checksum")
        ours = statistics.median(rates["dag.h 2x1"]) if "dag.h 2x1" in rates else None
        for name in rates:
            med, best = statistics.median(rates[name]), max(rates[name])
            ratio = f"{ours / med:.2f}x" if ours and name != "dag.h 2x1" else ""
            print(f"{name:<14} {med:8.1f} {best:8.1f}  {ratio:>24}  {checks[name].get('checksum', '?')} "
                  f"residual {checks[name].get('residual', '?')}")
        low = bound(n, a.nb, 1, 2)
        print(f"traffic per rank in the factorisation (bytes, messages) against the lower bound:")
        for r, (lb, lm) in enumerate(low):
            d = traffic.get("dag.h 2x1", [])
            s = traffic.get("StarPU-MPI", [])
            dag = f"{d[r][0]} B, {d[r][1]} msgs" if r < len(d) else "-"
            star = f"{s[r][0]} B" if r < len(s) else "-"
            print(f"  rank {r}: bound {lb} B, {lm} msgs | dag.h {dag} | StarPU-MPI {star}")


if __name__ == "__main__":
    main()
