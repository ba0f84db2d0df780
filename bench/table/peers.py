"""The db-benchmark questions in DuckDB, polars and pandas, one contender per process.

    peers.py SOLUTION TASK DATA_DIR N THREADS

prints one JSON object per line: {"q": "load", "time": s} after the tables are in memory,
then for each question and run {"q": "q1", "run": 1, "time": s, "cpu": s, "rows": n, "chk": [...]}.
A question's time is making its answer (a table in memory), cpu the process's CPU time meanwhile
(all threads); the checksum (the sums the benchmark publishes) is taken after, untimed. Strings stay strings in every contender
(no categoricals or enums), as in dag.h. bench/table/run.py runs it.
"""
import json
import os
import sys
import time

SOLUTION, TASK, DATA, N, THREADS = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5])
os.environ["POLARS_MAX_THREADS"] = str(THREADS)   # read when polars is imported


def pretty(n):
    """1e7 as the benchmark names it"""
    n, e = int(float(n)), 0
    while n >= 10 and n % 10 == 0:
        n, e = n // 10, e + 1
    return "%de%d" % (n, e)


def files():
    if TASK == "groupby":
        return ["G1_%s_1e2_0_0" % pretty(N)]
    n = int(float(N))
    return ["J1_%s_%s_0_0" % (pretty(N), r) for r in ("NA", pretty(max(n // 10**6, 10)), pretty(n // 1000), pretty(n))]


def csv(name):
    return os.path.join(DATA, name + ".csv")


def say(**kw):
    print(json.dumps(kw), flush=True)


# the columns each answer's checksum sums (groupby q1-q10, join q1-q5), and the joins: right table, key, kind
SUMS = {"groupby": [["v1"], ["v1"], ["v1", "v3"], ["v1", "v2", "v3"], ["v1", "v2", "v3"], ["median_v3", "sd_v3"],
                    ["range_v1_v2"], ["largest2_v3"], ["r2"], ["v3", "count"]],
        "join": [["v1", "v2"]] * 5}
JOINS = [(1, "id1", "inner"), (2, "id2", "inner"), (2, "id2", "left"), (2, "id5", "inner"), (3, "id3", "inner")]


def timed(q, make, check):
    """runs a question twice: the time of make(), then check(answer) -> (rows, sums)"""
    for run in (1, 2):
        t, cpu = time.perf_counter(), time.process_time()
        ans = make()
        t, cpu = time.perf_counter() - t, time.process_time() - cpu
        rows, chk = check(ans)
        say(q=q, run=run, time=t, cpu=cpu, rows=rows, chk=[float(c) for c in chk])
        del ans


# the questions, by number: groupby q1-q10, join q1-q5 (columns: x has id1..id6, v1 (join: id1..id6, v1))
def duckdb_run():
    import duckdb
    con = duckdb.connect()
    con.execute("SET threads=%d" % THREADS)
    names = ["x", "small", "medium", "big"]
    t, cpu = time.perf_counter(), time.process_time()
    for table, f in zip(names, files()):
        con.execute("CREATE TABLE %s AS SELECT * FROM read_csv('%s')" % (table, csv(f)))
    say(q="load", time=time.perf_counter() - t, cpu=time.process_time() - cpu)
    if TASK == "groupby":
        qs = [
            ("SELECT id1, sum(v1) AS v1 FROM x GROUP BY id1", "sum(v1)"),
            ("SELECT id1, id2, sum(v1) AS v1 FROM x GROUP BY id1, id2", "sum(v1)"),
            ("SELECT id3, sum(v1) AS v1, avg(v3) AS v3 FROM x GROUP BY id3", "sum(v1), sum(v3)"),
            ("SELECT id4, avg(v1) AS v1, avg(v2) AS v2, avg(v3) AS v3 FROM x GROUP BY id4", "sum(v1), sum(v2), sum(v3)"),
            ("SELECT id6, sum(v1) AS v1, sum(v2) AS v2, sum(v3) AS v3 FROM x GROUP BY id6", "sum(v1), sum(v2), sum(v3)"),
            ("SELECT id4, id5, median(v3) AS median_v3, stddev(v3) AS sd_v3 FROM x GROUP BY id4, id5",
             "sum(median_v3), sum(sd_v3)"),
            ("SELECT id3, max(v1) - min(v2) AS range_v1_v2 FROM x GROUP BY id3", "sum(range_v1_v2)"),
            ("SELECT id6, v3 AS largest2_v3 FROM (SELECT id6, v3, row_number() OVER (PARTITION BY id6 ORDER BY v3 DESC) AS r "
             "FROM x WHERE v3 IS NOT NULL) WHERE r <= 2", "sum(largest2_v3)"),
            ("SELECT id2, id4, pow(corr(v1, v2), 2) AS r2 FROM x GROUP BY id2, id4", "sum(r2)"),
            ("SELECT id1, id2, id3, id4, id5, id6, sum(v3) AS v3, count(*) AS count FROM x GROUP BY id1, id2, id3, id4, id5, id6",
             "sum(v3), sum(count)"),
        ]
    else:
        qs = [
            ("SELECT x.*, small.id4 AS small_id4, v2 FROM x JOIN small USING (id1)", "sum(v1), sum(v2)"),
            ("SELECT x.*, medium.id1 AS medium_id1, medium.id4 AS medium_id4, medium.id5 AS medium_id5, v2 "
             "FROM x JOIN medium USING (id2)", "sum(v1), sum(v2)"),
            ("SELECT x.*, medium.id1 AS medium_id1, medium.id4 AS medium_id4, medium.id5 AS medium_id5, v2 "
             "FROM x LEFT JOIN medium USING (id2)", "sum(v1), sum(v2)"),
            ("SELECT x.*, medium.id1 AS medium_id1, medium.id2 AS medium_id2, medium.id4 AS medium_id4, v2 "
             "FROM x JOIN medium USING (id5)", "sum(v1), sum(v2)"),
            ("SELECT x.*, big.id1 AS big_id1, big.id2 AS big_id2, big.id4 AS big_id4, big.id5 AS big_id5, big.id6 AS big_id6, v2 "
             "FROM x JOIN big USING (id3)", "sum(v1), sum(v2)"),
        ]
    for k, (sql, sums) in enumerate(qs):
        def make():
            con.execute("DROP TABLE IF EXISTS ans")
            con.execute("CREATE TEMP TABLE ans AS " + sql)
            return "ans"

        def check(ans):
            row = con.execute("SELECT count(*), %s FROM %s" % (sums, ans)).fetchone()
            return row[0], row[1:]

        timed("q%d" % (k + 1), make, check)


def run_frames(qs, height):
    """the questions of a data frame library: each answer's rows and column sums"""
    for k, make in enumerate(qs):
        timed("q%d" % (k + 1), make, lambda a, s=SUMS[TASK][k]: (height(a), [a[col].sum() for col in s]))


def polars_run():
    import polars as pl
    t, cpu = time.perf_counter(), time.process_time()
    tables = [pl.read_csv(csv(f)) for f in files()]
    say(q="load", time=time.perf_counter() - t, cpu=time.process_time() - cpu)
    x = tables[0]
    c = pl.col
    if TASK == "groupby":
        qs = [
            lambda: x.group_by("id1").agg(c("v1").sum()),
            lambda: x.group_by("id1", "id2").agg(c("v1").sum()),
            lambda: x.group_by("id3").agg(c("v1").sum(), c("v3").mean()),
            lambda: x.group_by("id4").agg(c("v1").mean(), c("v2").mean(), c("v3").mean()),
            lambda: x.group_by("id6").agg(c("v1").sum(), c("v2").sum(), c("v3").sum()),
            lambda: x.group_by("id4", "id5").agg(c("v3").median().alias("median_v3"), c("v3").std().alias("sd_v3")),
            lambda: x.group_by("id3").agg((c("v1").max() - c("v2").min()).alias("range_v1_v2")),
            lambda: x.drop_nulls("v3").group_by("id6").agg(c("v3").top_k(2).alias("largest2_v3")).explode("largest2_v3"),
            lambda: x.group_by("id2", "id4").agg((pl.corr("v1", "v2") ** 2).alias("r2")),
            lambda: x.group_by("id1", "id2", "id3", "id4", "id5", "id6").agg(c("v3").sum(), pl.len().alias("count")),
        ]
    else:
        qs = [lambda r=r, on=on, how=how: x.join(tables[r], on=on, how=how) for r, on, how in JOINS]
    run_frames(qs, lambda a: a.height)


def pandas_run():
    import pandas as pd
    import pyarrow
    pyarrow.set_cpu_count(THREADS)
    t, cpu = time.perf_counter(), time.process_time()
    tables = [pd.read_csv(csv(f), engine="pyarrow") for f in files()]
    say(q="load", time=time.perf_counter() - t, cpu=time.process_time() - cpu)
    x = tables[0]
    g = dict(as_index=False, sort=False, observed=True, dropna=False)
    if TASK == "groupby":
        def largest2():
            y = x[x["v3"].notna()][["id6", "v3"]].sort_values("v3", ascending=False)
            return y.groupby("id6", sort=False).head(2).rename(columns={"v3": "largest2_v3"})

        def r2():   # from sums of products, per group (pandas has no grouped corr of two columns that is not a loop)
            y = x[["id2", "id4", "v1", "v2"]].assign(xy=x["v1"] * x["v2"], xx=x["v1"] ** 2, yy=x["v2"] ** 2)
            s = y.groupby(["id2", "id4"], **g).agg(n=("v1", "size"), sx=("v1", "sum"), sy=("v2", "sum"), sxy=("xy", "sum"),
                                                    sxx=("xx", "sum"), syy=("yy", "sum"))
            cov = s["sxy"] - s["sx"] * s["sy"] / s["n"]
            return s[["id2", "id4"]].assign(r2=cov ** 2 / ((s["sxx"] - s["sx"] ** 2 / s["n"]) * (s["syy"] - s["sy"] ** 2 / s["n"])))

        qs = [
            lambda: x.groupby("id1", **g).agg(v1=("v1", "sum")),
            lambda: x.groupby(["id1", "id2"], **g).agg(v1=("v1", "sum")),
            lambda: x.groupby("id3", **g).agg(v1=("v1", "sum"), v3=("v3", "mean")),
            lambda: x.groupby("id4", **g).agg(v1=("v1", "mean"), v2=("v2", "mean"), v3=("v3", "mean")),
            lambda: x.groupby("id6", **g).agg(v1=("v1", "sum"), v2=("v2", "sum"), v3=("v3", "sum")),
            lambda: x.groupby(["id4", "id5"], **g).agg(median_v3=("v3", "median"), sd_v3=("v3", "std")),
            lambda: x.groupby("id3", **g).agg(v1=("v1", "max"), v2=("v2", "min")).assign(
                range_v1_v2=lambda a: a["v1"] - a["v2"])[["id3", "range_v1_v2"]],
            largest2,
            r2,
            lambda: x.groupby(["id1", "id2", "id3", "id4", "id5", "id6"], **g).agg(v3=("v3", "sum"), count=("v3", "size")),
        ]
    else:
        qs = [lambda r=r, on=on, how=how: x.merge(tables[r], on=on, how=how) for r, on, how in JOINS]
    run_frames(qs, len)


{"duckdb": duckdb_run, "polars": polars_run, "pandas": pandas_run}[SOLUTION]()
