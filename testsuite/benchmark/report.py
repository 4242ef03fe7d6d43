#!/usr/bin/env python3
"""Turns the Google Benchmark JSON of BlueTuskBenchmarks into results.json and a table.

Usage: report.py BENCHMARK_JSON RESULTS_JSON [--check [--strict]] [--markdown FILE]

For every measurement  it takes the median of the repetitions of the BlueTusk benchmark and of
its baseline (libpq's counterpart, or for the parallel multi-host open BlueTusk's own single healthy-host
open), the ratio BlueTusk / baseline (lower is better everywhere: times, or time per query), the ratio's
95 % bootstrap interval over the interleaved repetitions, the target and the verdict (verdict.py): "pass"
when the whole interval is at or under the target, "FAIL" when it is wholly above, "at parity" when it
spans the target. Rows without a target are reported with status "info". With --check the exit status
is 1 when a row FAILs or could not be measured (error or missing), else 0 ("at parity" passes the check);
with --check --strict "at parity" fails it too.

Python 3 standard library only.
"""

import datetime
import json
import os
import platform
import re
import statistics
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import verdict  # noqa: E402  (testsuite/benchmark/verdict.py)

def draw_rows(row_id, key, title, bluetusk, mean_target):
    """Rows for a series of draws (one benchmark iteration of 30 opens with counters draw_median_ns,
    draw_mean_ns, draw_p90_ns) against libpq's shuffled host list: median, mean (with mean_target as a ratio
    goal unless None) and p90."""
    rows = []
    for suffix, stat in (("", "median"), ("-mean", "mean"), ("-p90", "p90")):
        target = mean_target if stat == "mean" else None
        rows.append(dict(id=row_id + suffix, key=key + ("" if stat == "median" else "_" + stat),
                         title="%s (%s open)" % (title, stat), bluetusk=bluetusk, baseline="multihost_random/libpq",
                         metric="draw_%s_ns" % stat, unit="ms", kind="ratio" if target else None, target=target,
                         extra=["timeouts_paid"] if stat == "median" else []))
    return rows


# Each row: id, key, title, BlueTusk benchmark, baseline benchmark (None: no counterpart), libpq reference
# shown when the baseline is not libpq, metric ("time" = real time per iteration, else a counter name),
# unit of the metric as shown, target kind ("ratio": BlueTusk/baseline <= target; "absolute": BlueTusk
# median <= target in unit; None: informational), target value.
ROWS = [
    dict(id="1", key="connect_plain", title="New connection to the primary, SCRAM, no TLS (open + close)",
         bluetusk="connect_plain/bluetusk", baseline="connect_plain/libpq", metric="time", unit="us",
         kind="ratio", target=0.85),
    dict(id="2", key="connect_tls", title="New connection to the primary, SCRAM, TLS require (open + close)",
         bluetusk="connect_tls/bluetusk", baseline="connect_tls/libpq", metric="time", unit="us",
         kind="ratio", target=0.9),
    dict(id="3", key="select1_simple", title="SELECT 1, simple protocol, open session (vs PQexec)",
         bluetusk="select1_simple/bluetusk", baseline="select1_simple/libpq", metric="time", unit="us",
         kind="ratio", target=1.0),
    dict(id="4", key="extended_param", title="One-parameter extended query (vs PQexecParams)",
         bluetusk="extended_param/bluetusk", baseline="extended_param/libpq", metric="time", unit="us",
         kind="ratio", target=1.0),
    dict(id="5", key="rows_10k", title="10,000 rows x 5 text columns (vs PQexec)",
         bluetusk="rows_10k/bluetusk", baseline="rows_10k/libpq", metric="time", unit="ms",
         kind="ratio", target=1.0),
    dict(id="6a", key="pool_checkout", title="Pool checkout + return, target any, idle session, 1 thread",
         bluetusk="pool_checkout/bluetusk", baseline=None, metric="time", unit="ns",
         kind="absolute", target=200.0),
    dict(id="6c", key="pool_checkout_observed", title="Pool checkout + return as 6a, Prometheus exporter's observer installed (vs 6a)",
         bluetusk="pool_checkout/bluetusk_observed", baseline="pool_checkout/bluetusk", metric="time", unit="ns",
         kind="ratio", target=1.10),
    dict(id="6b", key="pool_contention", title="Pool checkout + return, 8 threads on 4 sessions (time per checkout)",
         bluetusk="pool_contention/bluetusk", baseline=None, metric="ns_per_checkout", unit="ns",
         kind=None, target=None,
         extra=["checkouts_per_second", "wait_median_ns", "wait_p99_ns", "wait_max_ns", "fairness", "thread_share"]),
    dict(id="7a", key="multihost_sequential", title="3 hosts, first black-holed, Timeout=2: sequential",
         bluetusk="multihost_sequential/bluetusk", baseline="multihost_sequential/libpq", metric="time", unit="ms",
         kind=None, target=None),
    # 7b and 7d: 30 draws each, as mean, median and p90 (draw_rows below).
    *draw_rows("7b", "multihost_random", "3 hosts, first black-holed, Timeout=2: random, 30 draws",
               "multihost_random/bluetusk", mean_target=None),
    dict(id="7c", key="multihost_parallel", title="3 hosts, first black-holed, Timeout=2: parallel (vs 1 healthy host)",
         bluetusk="multihost_parallel/bluetusk", baseline="connect_plain/bluetusk", reference="multihost_sequential/libpq",
         metric="time", unit="ms", kind="ratio", target=1.5),
    *draw_rows("7d", "multihost_learned", "3 hosts, first black-holed: random, host state learned (10 s), 30 draws",
               "multihost_learned/bluetusk", mean_target=0.5),
    dict(id="7e", key="multihost_learned_timeouts", title="7d's opens that paid the 2 s Timeout (libpq: 7b's; goal: once per Host Recheck Seconds)",
         bluetusk="multihost_learned/bluetusk", baseline=None, reference="multihost_random/libpq", metric="timeouts_paid",
         unit="count", kind="absolute", target=1),
    dict(id="8a", key="throughput_any", title="Pooled SELECT 1, 8 threads, 3 nodes, target any (time per query)",
         bluetusk="throughput_any/bluetusk", baseline="throughput_any/libpq", metric="ns_per_query", unit="us",
         kind="ratio", target=1.0, extra=["queries_per_second"]),
    dict(id="8b", key="throughput_prefer_standby", title="Pooled SELECT 1, 8 threads, 3 nodes, prefer-standby",
         bluetusk="throughput_prefer_standby/bluetusk", baseline="throughput_prefer_standby/libpq",
         metric="ns_per_query", unit="us", kind="ratio", target=1.7, extra=["queries_per_second"]),
    dict(id="8c", key="throughput_any_noreset", title="Pooled SELECT 1, 8 threads, target any, No Reset On Close",
         bluetusk="throughput_any_noreset/bluetusk", baseline="throughput_any/libpq", metric="ns_per_query", unit="us",
         kind=None, target=None, extra=["queries_per_second"]),
    dict(id="8d", key="throughput_prefer_standby_recheck", title="Pooled SELECT 1, 8 threads, prefer-standby, Role Recheck Milliseconds=100 (vs 8a)",
         bluetusk="throughput_prefer_standby_recheck/bluetusk", baseline="throughput_any/bluetusk", metric="ns_per_query", unit="us",
         kind="ratio", target=1.1, extra=["queries_per_second"]),
    dict(id="9a", key="prepared_param", title="Prepared one-parameter query, int parameter (vs PQexecPrepared)",
         bluetusk="prepared_param/bluetusk", baseline="prepared_param/libpq", metric="time", unit="us",
         kind="ratio", target=1.0),
    dict(id="9b", key="cached_query", title="Same SQL text repeated through the statement cache (vs PQexecParams)",
         bluetusk="cached_query/bluetusk", baseline="cached_query/libpq", metric="time", unit="us",
         kind="ratio", target=0.8),
    dict(id="9c", key="typed_rows_10k", title="10,000 rows x 5 typed columns into C++ values (vs libpq text + strtol/strtod)",
         bluetusk="typed_rows_10k/bluetusk", baseline="typed_rows_10k/libpq", metric="time", unit="ms",
         kind="ratio", target=1.0),
    dict(id="10a", key="data_select_one", title="Poco::Data single-row SELECT, use(id), into(x) (vs Poco's postgresql connector)",
         bluetusk="data_select_one/bluetusk", baseline="data_select_one/postgresql", metric="time", unit="us",
         kind="ratio", target=0.8),
    dict(id="10b", key="data_recordset", title="Poco::Data 10,000-row RecordSet (vs postgresql connector)",
         bluetusk="data_recordset/bluetusk", baseline="data_recordset/postgresql", metric="time", unit="ms",
         kind="ratio", target=0.8),
    dict(id="10c", key="data_insert_vector", title="Poco::Data 10,000-row INSERT with use(vector) (vs postgresql connector)",
         bluetusk="data_insert_vector/bluetusk", baseline="data_insert_vector/postgresql", metric="time", unit="ms",
         kind="ratio", target=0.8),
    dict(id="10d", key="data_insert_bulk", title="Poco::Data 10,000-row bulk INSERT (vs the postgresql connector's row-by-row insert)",
         bluetusk="data_insert_bulk/bluetusk", baseline="data_insert_vector/postgresql", metric="time", unit="ms",
         kind="ratio", target=0.2),
    dict(id="11a", key="stream_1m", title="Stream 1,000,000 int8 + text rows (vs libpq single-row mode)",
         bluetusk="stream_1m/bluetusk", baseline="stream_1m/libpq", metric="time", unit="ms",
         kind="ratio", target=1.0, extra=["peak_rss_growth_mb"]),
    dict(id="11b", key="copy_in_1m", title="COPY FROM STDIN, 1,000,000 text rows (vs PQputCopyData)",
         bluetusk="copy_in_1m/bluetusk", baseline="copy_in_1m/libpq", metric="time", unit="ms",
         kind="ratio", target=1.0),
    dict(id="11c", key="pipeline_1k", title="Pipeline of 1,000 single-row INSERTs (vs libpq pipeline mode)",
         bluetusk="pipeline_1k/bluetusk", baseline="pipeline_1k/libpq", metric="time", unit="ms",
         kind="ratio", target=1.0),
    dict(id="11d", key="pipeline_1k_serial", title="The same 1,000 INSERTs one round trip each (vs the pipeline)",
         bluetusk="pipeline_1k_serial/bluetusk", baseline="pipeline_1k/bluetusk", metric="time", unit="ms",
         kind=None, target=None),
    dict(id="12a", key="ryw_loop", title="Write, then read it back via prefer-standby: Read Your Writes (vs polling the replay LSN by hand)",
         bluetusk="ryw_loop/bluetusk", baseline="ryw_loop/naive", metric="time", unit="us",
         kind=None, target=None),
    dict(id="12b", key="token_checkout", title="Prefer-standby checkout with a reached token (vs a plain prefer-standby checkout)",
         bluetusk="token_checkout/bluetusk", baseline="token_checkout/plain", metric="time", unit="us",
         kind=None, target=None),
    dict(id="12d", key="token_checkout_statements", title="Statements the standby ran per checkout with a token (goal: no extra round trip)",
         bluetusk="token_checkout/bluetusk", baseline="token_checkout/plain", metric="server_statements_per_checkout",
         unit="statements", kind="absolute", target=2.05),
    dict(id="12c", key="write_token", title="Read-write checkout + INSERT + return, Read Your Writes on (vs off)",
         bluetusk="write_token/bluetusk", baseline="write_token/off", metric="time", unit="us",
         kind=None, target=None),
]

# PgBouncer side by side (scripts/bench starts it) and the goal rows of the curves
# (curves.py plots every point).
ROWS += [
    dict(id="13a", key="pgbouncer_throughput", title="Pooled SELECT 1, 8 threads, primary (vs libpq through PgBouncer, transaction pooling, time per query)",
         bluetusk="pgbouncer_throughput/bluetusk", baseline="pgbouncer_throughput/libpq", metric="ns_per_query", unit="us",
         kind="ratio", target=0.7, extra=["queries_per_second"]),
    dict(id="13c", key="pgbouncer_throughput_noreset", title="13a with No Reset On Close (PgBouncer's transaction pooling resets nothing either)",
         bluetusk="pgbouncer_throughput/bluetusk_noreset", baseline="pgbouncer_throughput/libpq", metric="ns_per_query", unit="us",
         kind=None, target=None, extra=["queries_per_second"]),
    dict(id="13d", key="pgbouncer_throughput_transaction", title="13a with BlueTusk's pool through the same PgBouncer, Server Pooling=transaction",
         bluetusk="pgbouncer_throughput/bluetusk_transaction", baseline="pgbouncer_throughput/libpq", metric="ns_per_query", unit="us",
         kind=None, target=None, extra=["queries_per_second"]),
    dict(id="13e", key="pgbouncer_throughput_transaction_noreset", title="13d with No Reset On Close",
         bluetusk="pgbouncer_throughput/bluetusk_transaction_noreset", baseline="pgbouncer_throughput/libpq", metric="ns_per_query", unit="us",
         kind=None, target=None, extra=["queries_per_second"]),
    dict(id="13f", key="pgbouncer_param", title="One-parameter query() through PgBouncer, Server Pooling=transaction (vs PQexecParams through it)",
         bluetusk="pgbouncer_param/bluetusk", baseline="pgbouncer_param/libpq", metric="time", unit="us",
         kind="ratio", target=1.0),
    dict(id="13b", key="pgbouncer_connect", title="A new client's checkout path: BlueTusk checkout + return (vs connect through PgBouncer + close)",
         bluetusk="pgbouncer_connect/bluetusk", baseline="pgbouncer_connect/libpq", metric="time", unit="us",
         kind="ratio", target=0.1),
    dict(id="14a", key="curve_threads_collapse", title="Pooled SELECT 1, 3 nodes x Maximum Pool Size 4: 64 threads (vs 8, time per query; no collapse)",
         bluetusk="curve_threads_64/bluetusk", baseline="curve_threads_8/bluetusk", metric="ns_per_query", unit="us",
         kind="ratio", target=1.5, extra=["wait_p50_ns", "wait_p99_ns", "thread_share", "jain", "fairness"]),
    dict(id="14d", key="curve_threads_collapse_fifo_anchor", title="14a's loop on a minimal first-come-first-served pool of 12 libpq connections: 64 threads (vs 8; the waiting order's own cost)",
         bluetusk="curve_threads_64/libpq_fifo", baseline="curve_threads_8/libpq_fifo", metric="ns_per_query", unit="us",
         kind=None, target=None, extra=["wait_p50_ns", "wait_p99_ns", "thread_share", "jain", "fairness"]),
    dict(id="14e", key="curve_threads_collapse_barging_anchor", title="14d with a barging pool (a returned connection goes idle, one waiter is woken to compete for it)",
         bluetusk="curve_threads_64/libpq_barging", baseline="curve_threads_8/libpq_barging", metric="ns_per_query", unit="us",
         kind=None, target=None, extra=["wait_p50_ns", "wait_p99_ns", "thread_share", "jain", "fairness"]),
    dict(id="14f", key="curve_threads_64_vs_fifo_anchor", title="14a's loop at 64 threads with No Reset On Close (vs 14d's first-come-first-served libpq pool, 64 threads: the pools themselves past saturation)",
         bluetusk="curve_threads_64/bluetusk_noreset", baseline="curve_threads_64/libpq_fifo", metric="ns_per_query", unit="us",
         kind=None, target=None, extra=["wait_p50_ns", "wait_p99_ns", "jain"]),
    dict(id="14b", key="curve_endpoints", title="Idle checkout + return with 30 endpoints in the host list (vs 3)",
         bluetusk="curve_endpoints_30/bluetusk", baseline="curve_endpoints_3/bluetusk", metric="time", unit="ns",
         kind="ratio", target=2.0),
    dict(id="14c", key="curve_addresses", title="New connection to a name with 8 addresses, the first 7 refusing (vs libpq, host list of the 8)",
         bluetusk="curve_addresses_8/bluetusk", baseline="curve_addresses_8/libpq", metric="time", unit="ms",
         kind=None, target=None),
]

# The memory a result held whole adds to the process (MemoryBenchmarks.cpp).
ROWS += [
    dict(id="15a", key="buffered_2m", title="2,000,000 int4 + md5 text rows held whole: peak RSS added (executeSimple vs PQexec)",
         bluetusk="buffered_2m/bluetusk", baseline="buffered_2m/libpq", metric="peak_rss_growth_mb", unit="MB",
         kind="ratio", target=1.0),
]

NS_PER = {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9, "statements": 1.0, "count": 1.0, "MB": 1.0}


def family(entry):
    """"connect_plain/bluetusk" from "connect_plain/bluetusk/iterations:20/repeats:5/real_time"."""
    parts = entry.get("run_name", entry["name"]).split("/")
    return "/".join(parts[:2])


def collect(benchmarks):
    """Per benchmark family: the samples of each metric (one per repetition) and errors."""
    runs = {}
    for entry in benchmarks:
        if entry.get("run_type", "iteration") != "iteration":
            continue
        run = runs.setdefault(family(entry), {"samples": {}, "errors": []})
        if entry.get("error_occurred"):
            run["errors"].append(entry.get("error_message", "error"))
            continue
        ns = entry["real_time"] * NS_PER[entry.get("time_unit", "ns")]
        run["samples"].setdefault("time", []).append(ns)
        run["samples"].setdefault("cpu", []).append(entry["cpu_time"] * NS_PER[entry.get("time_unit", "ns")])
        for name, value in entry.items():
            if isinstance(value, (int, float)) and name not in ("real_time", "cpu_time", "iterations",
                    "repetitions", "repetition_index", "threads", "family_index", "per_family_instance_index"):
                run["samples"].setdefault(name, []).append(float(value))
    return runs


def samples_of(runs, name, metric):
    run = runs.get(name)
    if not run or not run["samples"].get(metric):
        return None
    return run["samples"][metric]


def median_of(runs, name, metric):
    samples = samples_of(runs, name, metric)
    return None if samples is None else statistics.median(samples)


def to_unit(ns, unit):
    return None if ns is None else ns / NS_PER[unit]


def command_output(args):
    try:
        return subprocess.run(args, capture_output=True, text=True, timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return ""


def machine(context):
    cpu = ""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    debian = ""
    try:
        with open("/etc/debian_version") as f:
            debian = f.read().strip()
    except OSError:
        pass
    postgres = command_output(["/usr/lib/postgresql/15/bin/postgres", "--version"])
    poco = command_output(["dpkg-query", "-W", "-f=${Version}", "libpoco-dev"])
    gbench = command_output(["dpkg-query", "-W", "-f=${Version}", "libbenchmark-dev"])
    libpq = str(context.get("libpq_version", ""))
    if re.fullmatch(r"\d{6}", libpq):
        libpq = "%d.%d" % (int(libpq) // 10000, int(libpq) % 10000)
    return {
        "nproc": os.cpu_count(),
        "cpu": cpu,
        "mhz": context.get("mhz_per_cpu"),
        "os": "Debian " + debian if debian else platform.platform(),
        "kernel": platform.release(),
        "postgresql": postgres,
        "poco": poco,
        "libpq": libpq,
        "google_benchmark": gbench,
        "load_average": context.get("load_avg"),
        "date": context.get("date"),
        "cluster": context.get("bluetusk_cluster"),
    }


def evaluate(row, runs):
    unit = row["unit"]
    bt_run = runs.get(row["bluetusk"])
    bt = to_unit(median_of(runs, row["bluetusk"], row["metric"]), unit)
    base = to_unit(median_of(runs, row["baseline"], row["metric"]), unit) if row["baseline"] else None
    libpq_name = row.get("reference") or (row["baseline"] if row["baseline"] and row["baseline"].endswith("/libpq") else None)
    libpq = to_unit(median_of(runs, libpq_name, row["metric"]), unit) if libpq_name else None
    ratio = bt / base if bt is not None and base else None
    result = {
        "id": row["id"],
        "name": row["key"],
        "title": row["title"],
        "unit": unit,
        "metric": "real time per iteration" if row["metric"] == "time" else row["metric"],
        "bluetusk_median": bt,
        "libpq_median": libpq,
        "baseline": row["baseline"],
        "baseline_median": base,
        "ratio": ratio,
        "repetitions": len(bt_run["samples"].get(row["metric"], [])) if bt_run else 0,
        "target": None,
        "pass": None,
        "status": "info",
    }
    if row["kind"] == "ratio":
        result["target"] = "ratio <= %g x %s" % (row["target"], row["baseline"])
        result["target_text"] = "<= %g x %s" % (row["target"], "libpq" if row["baseline"].endswith("/libpq") else row["baseline"])
    elif row["kind"] == "absolute":
        result["target"] = "median <= %g %s" % (row["target"], unit)
        result["target_text"] = "<= %g %s" % (row["target"], unit)
        result["ratio"] = bt / row["target"] if bt is not None else None
    if row["metric"] == "time":
        # Process CPU time per iteration (all threads of the client process): the client's own work,
        # without the waiting for the server that real time includes.
        result["bluetusk_cpu_median"] = to_unit(median_of(runs, row["bluetusk"], "cpu"), unit)
        result["libpq_cpu_median"] = to_unit(median_of(runs, libpq_name, "cpu"), unit) if libpq_name else None
    extra = {}
    if bt_run:
        for name in row.get("extra", []):
            if bt_run["samples"].get(name):
                extra[name] = statistics.median(bt_run["samples"][name])
    if extra:
        result["counters"] = extra
    errors = (bt_run["errors"] if bt_run else []) + (runs.get(row["baseline"], {}).get("errors", []) if row["baseline"] else [])
    if errors:
        result["errors"] = sorted(set(errors))
    if bt is None or (row["baseline"] and base is None):
        result["status"] = "error" if errors else "missing"
        result["pass"] = False if row["kind"] else None
        return result
    if row["kind"] == "ratio":
        low, high = verdict.ratio_interval(samples_of(runs, row["bluetusk"], row["metric"]),
                                           samples_of(runs, row["baseline"], row["metric"]), row["key"])
    elif row["kind"] == "absolute":
        # The interval of the median itself, as a fraction of the target (ratio = median / target).
        low, high = (value / NS_PER[unit] / row["target"] for value in verdict.ratio_interval(
            samples_of(runs, row["bluetusk"], row["metric"]), None, row["key"]))
    else:
        return result
    result["ratio_low"], result["ratio_high"] = low, high
    result["status"] = verdict.verdict(low, high, 1.0 if row["kind"] == "absolute" else row["target"])
    # pass: True for pass, False for FAIL, None at parity (the interval spans the target).
    result["pass"] = {verdict.PASS: True, verdict.FAIL: False}.get(result["status"])
    return result


def fmt(value):
    if value is None:
        return "-"
    if value >= 100:
        return "%.0f" % value
    if value >= 10:
        return "%.1f" % value
    return "%.2f" % value


def ratio_text(r):
    """The ratio and, for a goal row, its 95 % interval: "1.02 (0.97-1.06)"."""
    if r.get("ratio_low") is None or r["ratio"] is None:
        return fmt(r["ratio"])
    return "%s (%s-%s)" % (fmt(r["ratio"]), fmt(r["ratio_low"]), fmt(r["ratio_high"]))


def table(results):
    lines = ["| # | benchmark | unit | BlueTusk | libpq | ratio (95 % interval) | target | result | CPU BlueTusk / libpq |",
             "|---|---|---|---|---|---|---|---|---|"]
    for r in results:
        target = r.get("target_text", "-")
        cpu = "-"
        if r.get("bluetusk_cpu_median") is not None:
            cpu = "%s / %s" % (fmt(r["bluetusk_cpu_median"]), fmt(r.get("libpq_cpu_median")))
        lines.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            r["id"], r["title"], r["unit"], fmt(r["bluetusk_median"]), fmt(r["libpq_median"]),
            ratio_text(r), target, r["status"], cpu))
    notes = []
    for r in results:
        if r.get("counters"):
            notes.append("- %s %s: %s" % (r["id"], r["name"], ", ".join(
                "%s=%s" % (k, fmt(v)) for k, v in r["counters"].items())))
        if r["baseline"] and not r["baseline"].endswith("/libpq"):
            notes.append("- %s %s: ratio against %s (median %s %s)" % (
                r["id"], r["name"], r["baseline"], fmt(r["baseline_median"]), r["unit"]))
        for error in r.get("errors", []):
            notes.append("- %s %s: error: %s" % (r["id"], r["name"], error))
    return "\n".join(lines + ([""] + notes if notes else []))


def summary(goals):
    """One line: how many goal rows pass, are at parity and miss, naming the latter two."""
    def named(rows):
        return " (" + ", ".join(r["id"] + " " + r["name"] for r in rows) + ")" if rows else ""
    passed = [r for r in goals if r["status"] == verdict.PASS]
    parity = [r for r in goals if r["status"] == verdict.AT_PARITY]
    missed = [r for r in goals if r["status"] not in (verdict.PASS, verdict.AT_PARITY)]
    return "%d rows with a target: %d pass, %d at parity%s, %d miss%s" % (
        len(goals), len(passed), len(parity), named(parity), len(missed), named(missed))


def main(argv):
    args = [a for a in argv[1:] if not a.startswith("--")]
    check = "--check" in argv
    markdown = None
    if "--markdown" in argv:
        markdown = argv[argv.index("--markdown") + 1]
        args.remove(markdown)
    if len(args) != 2:
        sys.stderr.write(__doc__)
        return 2
    with open(args[0]) as f:
        raw = json.load(f)
    runs = collect(raw.get("benchmarks", []))
    results = [evaluate(row, runs) for row in ROWS]
    goals = [r for r in results if r["target"] is not None]   # a missing row without a target is no goal
    strict = "--strict" in argv
    document = {
        "generated": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "machine": machine(raw.get("context", {})),
        "note": "Medians over repetitions; ratio = BlueTusk / baseline, lower is better; units per row "
                "(ns, us, ms, MB). ratio_low/ratio_high: the ratio's 95 % bootstrap interval over the "
                "interleaved repetitions; status pass (interval at or under the target), at parity (it "
                "spans the target) or FAIL (wholly above). Rows with status info have no target.",
        "passed": not any(verdict.fails_check(r["status"], strict) for r in goals),
        "benchmarks": results,
    }
    with open(args[1], "w") as f:
        json.dump(document, f, indent=2)
        f.write("\n")
    text = table(results)
    if markdown:
        with open(markdown, "w") as f:
            f.write(text + "\n")
    m = document["machine"]
    print("BlueTusk vs libpq (medians; ratio = BlueTusk / baseline, lower is better)")
    print("machine: %s x %s, %s, %s, libpq %s, load average %s" % (
        m["nproc"], m["cpu"], m["os"], m["postgresql"], m["libpq"], m["load_average"]))
    print(text)
    print("\n" + summary(goals))
    if check and not document["passed"]:
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
