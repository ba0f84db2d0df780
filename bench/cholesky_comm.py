#!/usr/bin/env python3
"""bench/cholesky_comm.py: the reference traffic of the distributed tile Cholesky (issue 17).

Simulates, tile by tile, the right-looking tiled Cholesky as every rank inserts
it (the loop of bench/cholesky_starpu_mpi.c) on a P x Q block-cyclic grid,
owner computes: tile (i, j) belongs to rank (i % P) * Q + j % Q, a task runs on
the owner of the tile it writes, and a tile's version must reach each other
rank that runs a task reading it, once (a rank keeps what it received until
the tile is written again). Sends come from the tile's owner, so the counts are
the lower bound for this algorithm and distribution that an implementation's
messages and bytes per rank are checked against (StarPU-MPI, with its cache,
reaches it). Tiles travel whole (a diagonal tile's NB x NB, not its triangle).

    python3 bench/cholesky_comm.py N NB P Q     (N need not be a multiple of NB)

Prints the task counts, the critical path in tasks (the longest chain of the
task graph, with updates of one tile in insertion order; 3T - 2 for T tiles a
side, checked), and per rank: tasks run, tile messages and bytes sent and
received.
"""
import sys


def simulate(n, nb, p, q):
    t = (n + nb - 1) // nb
    rows = [min(nb, n - i * nb) for i in range(t)]          # the last tile may be ragged
    owner = lambda i, j: (i % p) * q + j % q
    holders = {}                                             # tile -> ranks with its current version
    depth = {}                                               # tile -> critical path to its last writer
    ranks = p * q
    stats = {k: [0] * ranks for k in ("tasks", "msgs_sent", "bytes_sent", "msgs_recv", "bytes_recv")}
    counts = {"potrf": 0, "trsm": 0, "syrk": 0, "gemm": 0}

    def task(kind, reads, written):
        r = owner(*written)
        for tile in reads:                                   # what the executing rank lacks comes from the owner
            have = holders.setdefault(tile, {owner(*tile)})
            if r not in have:
                src, size = owner(*tile), rows[tile[0]] * rows[tile[1]] * 8
                stats["msgs_sent"][src] += 1
                stats["bytes_sent"][src] += size
                stats["msgs_recv"][r] += 1
                stats["bytes_recv"][r] += size
                have.add(r)
        depth[written] = 1 + max(depth.get(x, 0) for x in list(reads) + [written])
        holders[written] = {r}                               # a new version: every other copy is stale
        stats["tasks"][r] += 1
        counts[kind] += 1

    for k in range(t):
        task("potrf", [], (k, k))
        for i in range(k + 1, t):
            task("trsm", [(k, k)], (i, k))
        for i in range(k + 1, t):
            task("syrk", [(i, k)], (i, i))
            for j in range(k + 1, i):
                task("gemm", [(i, k), (j, k)], (i, j))
    return t, counts, max(depth.values()), stats


def main(argv):
    if len(argv) != 5:
        sys.exit("usage: cholesky_comm.py N NB P Q")
    n, nb, p, q = (int(a) for a in argv[1:])
    if min(n, nb, p, q) <= 0:
        sys.exit("cholesky_comm.py: N, NB, P and Q must be positive")
    t, counts, path, stats = simulate(n, nb, p, q)
    print(f"cholesky_comm N={n} NB={nb} T={t} grid {p}x{q} tile {nb * nb * 8} bytes")
    print("tasks: " + " ".join(f"{k} {v}" for k, v in counts.items()) + f" total {sum(counts.values())}")
    print(f"critical path: {path} tasks (3T-2 = {3 * t - 2})")
    print(f"{'rank':>5} {'tasks':>8} {'msgs_sent':>10} {'bytes_sent':>14} {'msgs_recv':>10} {'bytes_recv':>14}")
    for r in range(p * q):
        print(f"{r:>5} " + " ".join(f"{stats[k][r]:>{w}}" for k, w in
              (("tasks", 8), ("msgs_sent", 10), ("bytes_sent", 14), ("msgs_recv", 10), ("bytes_recv", 14))))
    print(f"{'total':>5} " + " ".join(f"{sum(stats[k]):>{w}}" for k, w in
          (("tasks", 8), ("msgs_sent", 10), ("bytes_sent", 14), ("msgs_recv", 10), ("bytes_recv", 14))))
    if path != 3 * t - 2:
        sys.exit(f"cholesky_comm.py: critical path {path} is not 3T-2 = {3 * t - 2}")


if __name__ == "__main__":
    main(sys.argv)
