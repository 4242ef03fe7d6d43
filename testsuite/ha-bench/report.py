#!/usr/bin/env python3
"""The tables of the failover benchmark from bluetusk-failover-bench's JSON lines (scripts/failover-bench).

Usage: report.py RUNS.jsonl [--markdown FILE] [--commit C] [--load L] [--machine M] [--check]
Prints (and writes to FILE) one row per run and client, then per client the median, p95 and worst of
"first write after the new primary accepts writes" and the totals, then the goal: BlueTusk's first write
at most 100 ms after the new primary accepts writes in every run, with no failed operation.
"Writes on a non-leader": acknowledged by a member other than the new primary after it accepted writes.
"Acknowledged by the killed leader after the kill": backends of the dead postmaster that finished a write
before noticing its death (that member still held the leader key; asynchronous replication may lose them).
p95 is the nearest-rank percentile: with fewer than 20 runs it is the worst run.
The failed operations are split: failed connects or checkouts (what Failover Timeout is for) and failed
writes (a write on a session whose server died under it: no client can hide it without re-running the
write, which BlueTusk never does on its own).
Exit status 2 when there is nothing to report; with --check, 1 when the goal misses; else 0.
"""
import argparse
import json
import math
import statistics
import sys

CLIENTS = [
    ("bluetusk", "BlueTusk (pooled, Failover Timeout)"),
    ("libpq", "libpq multi-host, read-write, retry 50 ms"),
    ("haproxy", "libpq via HAProxy (GET /primary)"),
]
GOAL_MS = 100.0


def p95(values):
    ordered = sorted(values)
    return ordered[max(0, math.ceil(0.95 * len(ordered)) - 1)]


def ms(value):
    return "none" if value is None else f"{value:.0f} ms"


def signed(value):
    return "none" if value is None else f"{value:+.0f} ms"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("runs")
    parser.add_argument("--markdown")
    parser.add_argument("--commit", default="?")
    parser.add_argument("--load", default="?")
    parser.add_argument("--machine", default="?")
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args()
    with open(args.runs) as f:
        runs = [json.loads(line) for line in f if line.strip()]
    if not runs:
        print("no runs in " + args.runs, file=sys.stderr)
        return 2

    lines = [f"Commit {args.commit}; load average before / after: {args.load}; {args.machine}; "
             f"{len(runs)} runs (kill -9 of the leader's postmaster each).", "",
             "| run | failover | kill -> new primary accepts writes | client | kill -> first write | "
             "first write after the new primary accepts writes | failed operations (connects or checkouts + writes) | "
             "writes on a non-leader | acknowledged by the killed leader after the kill |",
             "|---|---|---|---|---|---|---|---|---|"]
    for run in runs:
        for key, label in CLIENTS:
            c = run["clients"][key]
            lines.append(f"| {run['run']} | node{run['old_leader']} -> node{run['new_leader']} | "
                         f"{ms(run['kill_to_promotion_ms'])} | {label} | {ms(c['first_write_after_kill_ms'])} | "
                         f"{signed(c['first_write_after_promotion_ms'])} | "
                         f"{c['failed_connects'] + c['failed_writes']} ({c['failed_connects']} + {c['failed_writes']}) | "
                         f"{c['non_leader_writes']} | {c.get('old_leader_after_kill', '-')} |")
    promotion = [r["kill_to_promotion_ms"] for r in runs]
    lines += ["", f"Kill -> new primary accepts writes: median {ms(statistics.median(promotion))}, "
                  f"p95 {ms(p95(promotion))}, max {ms(max(promotion))}.", "",
              "| client | first write after the new primary accepts writes: median / p95 / max | "
              "failed operations, all runs (connects or checkouts + writes) | writes on a non-leader, all runs | "
              "sessions on a standby (BlueTusk: read-write checkouts; libpq: writes refused with 25006) |",
              "|---|---|---|---|---|"]
    goal = True
    for key, label in CLIENTS:
        after = [r["clients"][key]["first_write_after_promotion_ms"] for r in runs]
        failed = sum(r["clients"][key]["failed_connects"] + r["clients"][key]["failed_writes"] for r in runs)
        wrong = sum(r["clients"][key]["non_leader_writes"] for r in runs)
        known = [a for a in after if a is not None]
        summary = (f"{signed(statistics.median(known))} / {signed(p95(known))} / {signed(max(known))}" if known else "none")
        if len(known) < len(after):
            summary += f" ({len(after) - len(known)} runs without a write on the new primary)"
        connects = sum(r["clients"][key]["failed_connects"] for r in runs)
        standby = sum(r["clients"][key]["wrong_node"] for r in runs)
        lines.append(f"| {label} | {summary} | {failed} ({connects} + {failed - connects}) | {wrong} | {standby} |")
        if key == "bluetusk":
            worst = None if len(known) < len(after) else max(known)
            checkouts = sum(r["clients"][key]["failed_connects"] for r in runs)
            lost = [r["run"] for r in runs if r["clients"][key]["failed_writes"]]
            goal = worst is not None and worst <= GOAL_MS and failed == 0
            if worst is None:
                verdict = "MISSED: a run had no BlueTusk write on the new primary"
            else:
                verdict = (("met" if goal else "MISSED") + f": worst first write {signed(worst)} (goal <= +{GOAL_MS:.0f} ms, "
                           f"{'met' if worst <= GOAL_MS else 'missed'}); failed checkouts {checkouts}; writes that failed "
                           f"on their session when its server died {failed - checkouts}"
                           + (f" (runs {', '.join(map(str, lost))})" if lost else ""))
    lines += ["", f"Goal (BlueTusk's first write <= {GOAL_MS:.0f} ms after the new primary accepts writes in every run, "
                  f"0 failed operations): {verdict}."]
    text = "\n".join(lines) + "\n"
    print(text)
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(text)
    return 1 if args.check and not goal else 0


if __name__ == "__main__":
    sys.exit(main())
