#!/usr/bin/env python3
"""The db-benchmark groupby (q1-q10) and join (q1-q5) questions: dag.h against DuckDB, polars and pandas.

    python3 bench/table/run.py [--n 1e7] [--threads 2] [--rounds 1] [--tasks groupby,join]

Each contender is its own process (bench/table/table_bench for dag.h, bench/table/peers.py in the
peers' virtual environment for the others) that loads the data, then runs each question twice; the
contenders take turns, task by task, round by round (the order rotates), on the same files,
made first by bench/table/datagen when missing. The table gives the load time apart, each
question's two times, and dag.h's best time over each peer's (below 1: dag.h is faster). Every
answer's checksum (the sums db-benchmark publishes) is checked against the other contenders' and,
for the published data sets (N = 1e7), against the published figures. `make bench-table` runs it.
"""
import argparse
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
CONTENDERS = ["dag.h", "duckdb", "polars", "pandas"]
QUESTIONS = {
    "groupby": ["sum v1 by id1", "sum v1 by id1:id2", "sum v1 mean v3 by id3", "mean v1:v3 by id4", "sum v1:v3 by id6",
                "median v3 sd v3 by id4 id5", "max v1 - min v2 by id3", "largest two v3 by id6",
                "regression v1 v2 by id2 id4", "sum v3 count by id1:id6"],
    "join": ["small inner on int", "medium inner on int", "medium outer on int", "medium inner on factor", "big inner on int"],
}
# db-benchmark's published checksums for its 1e7 data sets (time.csv of duckdblabs/db-benchmark): the
# sums of the answers' columns, to the decimals published
PUBLISHED = {
    ("groupby", 10**7): [([29998789.000], 3), ([29998789.000], 3), ([29998789.000, 4999719.622], 3),
                         ([299.988, 799.894, 4999.767], 3), ([29998789.000, 79989360.000, 499976651.408], 3),
                         ([499920.140, 288648.108], 3), ([399882.000], 3), ([19700450.588], 3), ([9.839], 3),
                         ([499976651.408, 10000000.000], 3)],
    ("join", 10**7): [([450015154, 347720187], 0), ([449954076, 449999845], 0), ([500043741, 449999845], 0),
                      ([449954076, 449999845], 0), ([450032092, 449860429], 0)],
}


def pretty(n):
    e = 0
    while n >= 10 and n % 10 == 0:
        n, e = n // 10, e + 1
    return "%de%d" % (n, e)


def make_data(args, n):
    name = {"groupby": "G1_%s_1e2_0_0.csv" % pretty(n), "join": "J1_%s_NA_0_0.csv" % pretty(n)}
    for task in args.tasks:
        if not os.path.exists(os.path.join(args.data, name[task])):
            os.makedirs(args.data, exist_ok=True)
            what = ["groupby", str(n), "100"] if task == "groupby" else ["join", str(n)]
            subprocess.run([args.datagen] + what + [args.data], check=True, stdout=subprocess.DEVNULL)


def run_one(args, who, task, n):
    """one contender's process: {q: {...}} of its JSON lines, or the reason it failed"""
    if who == "dag.h":
        cmd = [args.table_bench, task, args.data, str(n), str(args.threads)]
    else:
        cmd = [args.python, os.path.join(HERE, "peers.py"), who, task, args.data, str(n), str(args.threads)]
    env = dict(os.environ, OMP_NUM_THREADS=str(args.threads))
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=args.timeout, env=env)
    except subprocess.TimeoutExpired:
        return "timed out after %d s" % args.timeout
    if p.returncode != 0:
        return "failed (%d): %s" % (p.returncode, (p.stderr.strip().splitlines() or ["?"])[-1])
    out = {}
    for line in p.stdout.splitlines():
        r = json.loads(line)
        out.setdefault(r["q"], []).append(r)
    return out


def agree(a, b, decimals=None):
    if len(a) != len(b):
        return False
    if decimals is not None:   # a published figure, to its decimals (and the rounding of sums of 1e7 doubles)
        return all(abs(x - y) <= 0.6 * 10 ** -decimals + 1e-11 * abs(y) for x, y in zip(a, b))
    return all(abs(x - y) <= 1e-9 * (1 + abs(y)) or (x != x and y != y) for x, y in zip(a, b))


def report(task, n, results, rounds, what="time"):
    """the table of wall times (what: "time") or CPU times ("cpu"): per question each contender's two runs (of the
    round with the best run), and dag.h's best over each peer's"""
    lines = []
    best = {}   # (who, q) -> (t1, t2) of the round with the best run
    for who in CONTENDERS:
        for res in results[who]:
            if isinstance(res, str):
                continue
            for q, rs in res.items():
                if what not in rs[0]:
                    continue
                ts = tuple(r[what] for r in rs)
                if (who, q) not in best or min(ts) < min(best[(who, q)]):
                    best[(who, q)] = ts
    head = "%-28s" % ("%s, N = %s%s" % (task, pretty(n), ", CPU s" if what == "cpu" else ""))
    for who in CONTENDERS:
        head += "%20s" % who
    head += "   dag.h / duckdb, polars, pandas"
    lines.append(head)
    names = ["load"] + ["q%d" % (k + 1) for k in range(len(QUESTIONS[task]))]
    for q in names:
        label = q if q == "load" else "%s %s" % (q, QUESTIONS[task][int(q[1:]) - 1])
        row = "%-28s" % label[:28]
        for who in CONTENDERS:
            ts = best.get((who, q))
            row += "%20s" % ("-" if ts is None else " / ".join("%.3f" % t for t in ts))
        ours = best.get(("dag.h", q))
        ratios = []
        for who in CONTENDERS[1:]:
            theirs = best.get((who, q))
            ratios.append("-" if not ours or not theirs else "%.2f" % (min(ours) / min(theirs)))
        lines.append(row + "   " + ", ".join(ratios))
    if what == "cpu":
        lines.append("(CPU seconds of the process, all threads, while the answer was made: the work, whatever else ran on the "
                     "machine; spinning idle threads count too)")
    else:
        lines.append("(seconds, run 1 / run 2 of the best of %d round%s; ratio: dag.h's best run over the peer's: below 1 dag.h "
                     "is faster)" % (rounds, "s" if rounds > 1 else ""))
    return lines


def checks(task, n, results):
    """each answer's checksum against DuckDB's and the published figures; the lines that say so"""
    lines, bad = [], 0
    published = PUBLISHED.get((task, n))
    for k in range(len(QUESTIONS[task])):
        q = "q%d" % (k + 1)
        answers = {}
        for who in CONTENDERS:
            for res in results[who]:
                if not isinstance(res, str) and q in res:
                    answers.setdefault(who, []).extend(r["chk"] for r in res[q])
        ref = answers.get("duckdb", [None])[0]
        for who, chks in answers.items():
            for chk in chks:
                ok = ref is None or agree(chk, ref)
                if published:
                    ok = ok and agree(chk, published[k][0], published[k][1])
                if not ok:
                    bad += 1
                    lines.append("MISMATCH %s %s %s: %s, duckdb %s%s" % (task, q, who, chk, ref,
                                                                          ", published %s" % published[k][0] if published else ""))
    what = "each other%s" % (" and db-benchmark's published checksums" if published else "")
    lines.append("checksums: %s" % ("all agree with " + what if not bad else "%d disagree" % bad))
    return lines, bad


def main():
    global CONTENDERS
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", default="1e7", help="rows of the groupby table and of the join's left one (1e6, 1e7...)")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--rounds", type=int, default=1, help="times each contender runs each task (the best is shown)")
    ap.add_argument("--tasks", default="groupby,join")
    ap.add_argument("--only", default=",".join(CONTENDERS), help="contenders, of " + ",".join(CONTENDERS))
    ap.add_argument("--data", default=os.path.join(ROOT, "build", "table", "data"))
    ap.add_argument("--bin", default=os.path.join(ROOT, "build", "table"), help="where table_bench and datagen are")
    ap.add_argument("--python", default=os.path.join(ROOT, ".deps", "table-peers", "bin", "python"))
    ap.add_argument("--timeout", type=int, default=3600)
    args = ap.parse_args()
    args.tasks = args.tasks.split(",")
    args.table_bench = os.path.join(args.bin, "table_bench")
    args.datagen = os.path.join(args.bin, "datagen")
    CONTENDERS = [c for c in CONTENDERS if c in args.only.split(",")]
    n = int(float(args.n))
    if any(c != "dag.h" for c in CONTENDERS) and not os.path.exists(args.python):
        sys.exit("bench/table: no %s (make deps installs DuckDB, polars and pandas there)" % args.python)
    make_data(args, n)
    failures = 0
    for task in args.tasks:
        results = {who: [] for who in CONTENDERS}
        for r in range(args.rounds):
            order = CONTENDERS[r % len(CONTENDERS):] + CONTENDERS[:r % len(CONTENDERS)]
            for who in order:
                t = time.time()
                res = run_one(args, who, task, n)
                print("  %s %s round %d: %s in %.0f s" % (task, who, r + 1, res if isinstance(res, str) else "done",
                                                         time.time() - t), file=sys.stderr, flush=True)
                results[who].append(res)
                failures += isinstance(res, str)
        print("\n".join(report(task, n, results, args.rounds)))
        print("\n".join(report(task, n, results, args.rounds, "cpu")))
        lines, bad = checks(task, n, results)
        print("\n".join(lines) + "\n", flush=True)
        failures += bad
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
