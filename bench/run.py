#!/usr/bin/env python3
"""Task overhead and METG, dag.h side by side with libgomp, libomp and StarPU.

Every contender runs as its own process (libgomp and libomp cannot share
one), interleaved round by round because this machine's speed drifts within
minutes; each figure is the median (and best) over the rounds of that run.

    python3 bench/run.py [--rounds 5] [--quick] [--against REV]

--against REV builds bench/dag_tasks.c of git revision REV (with that
revision's headers) and runs it as one more contender, "dag.h@REV", in the
overhead rows: the way to show a change to dag.h costs nothing.

Workloads (2 threads each):
  empty    1,000,000 independent empty tasks
  out      1,000,000 independent tasks, each with one Out on its own element
           (StarPU: 100,000; its per-handle registration makes 1e6 take minutes)
  chain    100,000 tasks with InOut on one scalar
  scoped   dag.h alone: tasks under a scope of several workers against none
  handoff  a task spawned on worker 1, started on worker 2 idle 10 us / 1 ms / 1 s,
           beside a bare condition variable's wake-up (bench/os_wake.c)
  METG     Task Bench's 1-D stencil with buffer reuse, widths 2 and 8, 1000
           steps: the smallest task granularity (wall x cores / tasks) at
           50% and 75% efficiency (serial time / (cores x wall time)).
"""
import argparse, os, statistics, subprocess, sys

B = "build/bench"
CONTENDERS = {
    "dag.h":  ([f"{B}/dag_tasks"], {"DAG_NUM_THREADS": "2"}),
    "libgomp": ([f"{B}/omp_tasks_gomp"], {"OMP_NUM_THREADS": "2"}),
    "libomp": ([f"{B}/omp_tasks_libomp"], {"OMP_NUM_THREADS": "2"}),
    "StarPU": ([f"{B}/starpu_tasks"], {"STARPU_NCPU": "2", "STARPU_SILENT": "1", "STARPU_CALIBRATE": "0"}),
}


def add_revision(rev):
    """Builds REV's bench/dag_tasks.c against REV's headers; adds it as a contender."""
    where = f"{B}/rev-{rev}"
    os.makedirs(where, exist_ok=True)
    files = subprocess.run(["git", "ls-tree", "-r", "--name-only", rev], capture_output=True, text=True, check=True).stdout.split()
    keep = [f for f in files if f.endswith(".h") or f == "bench/dag_tasks.c"]
    archive = subprocess.run(["git", "archive", rev] + keep, capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", where], input=archive, check=True)
    cc = os.environ.get("CC", "cc")
    subprocess.run([cc, "-std=c11", "-O2", "-I" + where, "-I" + where + "/bench", where + "/bench/dag_tasks.c",
                    "-o", where + "/dag_tasks", "-pthread", "-lm"], check=True)
    CONTENDERS[f"dag.h@{rev}"] = ([f"{where}/dag_tasks"], {"DAG_NUM_THREADS": "2"})


def run(name, args, extra=None):
    cmd, env = CONTENDERS[name]
    return run_program(cmd, args, dict(env, **(extra or {})), name)


def run_program(cmd, args, env=None, name=None):
    """Runs one benchmark process; returns the key=value fields it printed."""
    e = dict(os.environ, **(env or {}))
    out = subprocess.run(cmd + [str(a) for a in args], env=e, capture_output=True, text=True, timeout=600)
    if out.returncode != 0:
        raise RuntimeError(f"{name or cmd[0]} {args}: exit {out.returncode}: {out.stderr.strip()[:300]}")
    fields = dict(kv.split("=") for kv in out.stdout.split())
    return {k: float(v) for k, v in fields.items()}


def overhead(rounds, quick):
    n = 200000 if quick else 1000000
    work = [("empty", n), ("out", n), ("chain", n // 10)]
    res = {(w, c): [] for w, _ in work for c in CONTENDERS}
    for r in range(rounds):
        for w, size in work:
            for c in CONTENDERS:
                s = min(size, 100000) if (c == "StarPU" and w == "out") else size
                res[(w, c)].append(run(c, [w, s])["ns_per_task"])
        print(f"  round {r + 1}/{rounds} done", file=sys.stderr)
    print("\nTask overhead, ns per task on 2 threads (median / best of %d interleaved rounds)" % rounds)
    print("%-8s" % "" + "".join("%20s" % c for c in CONTENDERS) + "   dag.h vs: " + ", ".join(c for c in CONTENDERS if c != "dag.h"))
    for w, _ in work:
        med = {c: statistics.median(res[(w, c)]) for c in CONTENDERS}
        best = {c: min(res[(w, c)]) for c in CONTENDERS}
        row = "%-8s" % w + "".join("%20s" % ("%.1f / %.1f" % (med[c], best[c])) for c in CONTENDERS)
        row += "   " + ", ".join("%.2fx" % (med[c] / med["dag.h"]) for c in CONTENDERS if c != "dag.h")
        print(row)
    print("(ratio = peer median / dag.h median: above 1 means dag.h is faster)")


def metg(rounds, quick):
    # Task Bench's METG (Slaughter et al., SC20) on its 1-D stencil with
    # buffer reuse (two buffers per column, so write-after-read edges too),
    # 1000 steps. Efficiency = achieved / peak FLOP/s of the same kernel =
    # serial time / (cores x wall time); task granularity = wall time x cores
    # / tasks. METG(x) is the smallest granularity at efficiency >= x. Task
    # lengths go from long to short (K multiply-adds, about 1.4 ns each); a
    # contender stops after two misses in a row below 50%.
    ks = [64000, 32000, 16000, 8000, 5600, 4000, 2800, 2000, 1400, 1000, 700, 500, 350, 250, 125, 60]
    if quick:
        ks = ks[::2]
    steps, cores = (300 if quick else 1000), 2
    levels = (0.5, 0.75)
    print("\nMETG (Task Bench): smallest task granularity, us, at >= 50%% / 75%% efficiency on %d cores" % cores)
    print("stencil with buffer reuse, %d steps (median of %d rounds; - : never reached)" % (steps, rounds))
    print("%-8s" % "width" + "".join("%20s" % c for c in CONTENDERS) + "   METG(75%) peer / dag.h")
    for width in (2, 8):
        found = {(c, x): [] for c in CONTENDERS for x in levels}
        for r in range(rounds):
            best = {(c, x): float("inf") for c in CONTENDERS for x in levels}
            misses = {c: 0 for c in CONTENDERS}
            for k in ks:
                for c in CONTENDERS:  # interleaved: every contender at this K, then the next K
                    if misses[c] >= 2:
                        continue
                    o = run(c, ["reuse", steps, width, k])
                    eff = o["useful_s"] / (cores * o["total_s"])
                    gran = o["total_s"] * cores / o["tasks"] * 1e6
                    for x in levels:
                        if eff >= x:
                            best[(c, x)] = min(best[(c, x)], gran)
                    misses[c] = 0 if eff >= 0.5 else misses[c] + 1
            for key in best:
                found[key].append(best[key])
        med = {key: statistics.median(v) for key, v in found.items()}
        fmt = lambda v: "-" if v == float("inf") else "%.2f" % v
        row = "%-8s" % width + "".join("%20s" % ("%s / %s" % (fmt(med[(c, 0.5)]), fmt(med[(c, 0.75)]))) for c in CONTENDERS)
        d = med[("dag.h", 0.75)]
        row += "   " + ", ".join("%s %s" % (c, "-" if d == float("inf") or med[(c, 0.75)] == float("inf")
                                            else "%.1fx" % (med[(c, 0.75)] / d)) for c in CONTENDERS if c != "dag.h")
        print(row)
    print("(above 1x: dag.h stays efficient with shorter tasks than the peer)")


def handoff(quick):
    # A task made ready by the main thread (worker 1), started by worker 2
    # after it has been idle 10 us, 1 ms or 1 s: spawn to start, in us.
    cases = [(10, 200), (1000, 100), (1000000, 5 if quick else 10)]
    if quick:
        cases = [(10, 50), (1000, 30), (1000000, 3)]
    print("\nHand-off to an idle worker: spawn on worker 1 to start on worker 2, us (median / p99)")
    print("%-10s" % "idle" + "".join("%20s" % c for c in list(CONTENDERS) + ["OS wake"]) + "   median peer / dag.h")
    for idle_us, n in cases:
        # StarPU's submitting thread is no worker and its idle workers poll:
        # one worker plus the main thread is the 2 threads the others have
        res = {c: run(c, ["handoff", n, idle_us], {"STARPU_NCPU": "1"} if c == "StarPU" else None) for c in CONTENDERS}
        res["OS wake"] = run_program([f"{B}/os_wake"], ["handoff", n, idle_us])
        label = "%d us" % idle_us if idle_us < 1000 else "%d ms" % (idle_us // 1000) if idle_us < 1000000 else "%d s" % (idle_us // 1000000)
        row = "%-10s" % label + "".join("%20s" % ("%.2f / %.2f" % (res[c]["median_us"], res[c]["p99_us"])) for c in res)
        d = max(res["dag.h"]["median_us"], 1e-3)
        row += "   " + ", ".join("%.1fx" % (res[c]["median_us"] / d) for c in CONTENDERS if c != "dag.h")
        print(row)
    print("(p99 of %d samples at 1 s idle is their worst; OS wake: a bare condition variable's wake-up,"
          " the floor under a parked worker)" % cases[-1][1])


def scoped(rounds, quick):
    # dag.h alone (the peers have no scopes): do scoped tasks spread as well
    # as unscoped ones? K=1000 is about 1.4 us of work per task.
    n, k = (50000 if quick else 200000), 1000
    rows = [("unscoped, 2 threads", 2, "none"), ("scope {1,2} of 2", 2, "all"),
            ("scope {2,3} of 3", 3, "others")]
    res = {r[0]: [] for r in rows}
    split = {}
    for _ in range(rounds):
        for label, threads, mode in rows:
            cmd, env = CONTENDERS["dag.h"]
            e = dict(os.environ, **dict(env, DAG_NUM_THREADS=str(threads)))
            out = subprocess.run(cmd + ["scoped", str(n), str(k), mode], env=e, capture_output=True, text=True, timeout=600)
            if out.returncode != 0:
                raise RuntimeError(f"dag.h scoped {mode}: exit {out.returncode}: {out.stderr.strip()[:300]}")
            fields = dict(kv.split("=") for kv in out.stdout.split())
            res[label].append(float(fields["ns_per_task"]))
            split[label] = fields["run"]
    print("\nScoped tasks spread like unscoped ones (dag.h, %d tasks of ~1.4 us, median of %d rounds)" % (n, rounds))
    base = statistics.median(res[rows[0][0]])
    for label, _, _ in rows:
        med = statistics.median(res[label])
        print("  %-22s %8.1f ns/task  %.2fx of unscoped   tasks run by worker 1,2,..: %s" % (label, med, med / base, split[label]))
    print("(a scope of 2 workers out of 3 leaves 2 running tasks, as unscoped on 2 threads)")


def wake():
    o = run("dag.h", ["wake", 200])
    print("\nWake-up of a sleeping worker (dag.h, spawn to start of a task pinned to it, 200 samples):"
          " median %.1f us, worst %.1f us" % (o["wake_median_us"], o["wake_max_us"]))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--only", choices=["overhead", "handoff", "metg"])
    ap.add_argument("--against", metavar="REV", help="also run dag.h as of git revision REV")
    a = ap.parse_args()
    # dag.h's side is rebuilt from the headers in the tree: a binary left over
    # from older headers would be measured as if it were this code
    subprocess.run(["make", "-s", f"{B}/dag_tasks", f"{B}/os_wake"], check=True)
    if a.against:
        add_revision(a.against)
    print("dag.h task benchmarks: %d cores, contenders interleaved round by round" % os.cpu_count())
    if a.only in (None, "overhead"):
        overhead(a.rounds, a.quick)
    for c in [c for c in CONTENDERS if c.startswith("dag.h@")]:
        del CONTENDERS[c]   # the comparison of builds is about overhead
    if a.only in (None, "overhead"):
        scoped(a.rounds, a.quick)
        wake()
    if a.only in (None, "handoff"):
        handoff(a.quick)
    if a.only in (None, "metg"):
        metg(max(1, a.rounds // 2 + 1), a.quick)


if __name__ == "__main__":
    main()
