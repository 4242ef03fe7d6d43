#!/usr/bin/env python3
"""scripts/fleet's report: the fleet's figures from one run's work directory.

The directory holds proc-<n>.jsonl (each worker's JSON lines, testsuite/fleet/FleetWorker.h), watch.json (the
promotion watch's line), phases ("<name> <epoch us>" per phase: steady, kill, recovered, standby-stop,
standby-start, standby-back, end) and sessions-<phase> ("<member> <role> <application_name> <count>" per
member, from pg_stat_activity).

  report.py --work DIR --processes N --check-written SERVER SINCE_US
      exit 0 when every process has written on SERVER after SINCE_US (scripts/fleet polls it), 1 otherwise
  report.py --table JSON...
      the runs' JSON reports side by side as a Markdown table (doc/high-availability.md)
  report.py --work DIR --mode MODE --processes N --pool N --commit C --patroni-dir DIR [--json FILE]
      prints the report; writes it as one JSON object to FILE; exit 1 when the with-storm-control run saw
      an application-visible 53300 or a process never wrote on the new primary, 0 otherwise

Figures:
  peak attempts/s      the most "connection received" lines of the new primary's postgresql.log in one
                       second (and in one 100 ms), from the kill until the fleet recovered (+10 s); every connection attempt,
                       also those refused with 53300 ("sorry, too many clients already")
  server 53300         the new primary's FATAL "too many clients" / "remaining connection slots" lines then
  all written again    from the promotion (the watch's first pg_is_in_recovery() = f on the new primary) until
                       the last process's first write acknowledged by the new primary; median and max; and
                       from the first process's first write there to the last's (the spread: needs no watch)
  application 53300    failed operations whose exception carries SQLSTATE 53300, over the whole run (goal 0)
  standby imbalance    after a standby was stopped and came back: |A - B| / processes, A and B the fleet's
                       sessions on the two standbys (each process's median of three samples) (goal <= 1: balanced within one session per process);
                       also the largest |a_i - b_i| of one process
"""

import argparse
import glob
import json
import os
import re
import statistics
import sys
from datetime import datetime, timezone


def load_processes(work):
    processes = {}
    for path in glob.glob(os.path.join(work, "proc-*.jsonl")):
        number = int(re.search(r"proc-(\d+)\.jsonl$", path).group(1))
        events = []
        with open(path) as lines:
            for line in lines:
                line = line.strip()
                if not line:
                    continue
                try:
                    events.append(json.loads(line))
                except ValueError:
                    pass  # a line cut by a kill
        processes[number] = events
    return processes


def first_write_on(events, server, since):
    for event in events:
        if event.get("event") == "write_on" and event.get("server") == server and event.get("at_us", 0) > since:
            return event["at_us"]
    return None


def check_written(args):
    processes = load_processes(args.work)
    if len(processes) < args.processes:
        return 1
    server, since = args.check_written[0], int(args.check_written[1])
    return 0 if all(first_write_on(events, server, since) is not None for events in processes.values()) else 1


def load_phases(work):
    phases = {}
    path = os.path.join(work, "phases")
    if os.path.exists(path):
        with open(path) as lines:
            for line in lines:
                name, at = line.split()
                phases[name] = int(at)
    return phases


LOG_LINE = re.compile(r"^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3}) (\S+) \[\d+\] (.*)$")


def log_seconds(path, start_us, end_us):
    """Connection attempts and 53300 refusals per second, and attempts per 100 ms, of the log between
    start_us and end_us."""
    attempts, refusals, tenths = {}, {}, {}
    if not os.path.exists(path):
        return attempts, refusals, tenths
    with open(path, errors="replace") as lines:
        for line in lines:
            match = LOG_LINE.match(line)
            if not match:
                continue
            stamp, zone, text = match.groups()
            if zone not in ("UTC", "GMT"):
                continue  # scripts/patroni's members log in UTC (set-up without TZ)
            at = datetime.strptime(stamp, "%Y-%m-%d %H:%M:%S.%f").replace(tzinfo=timezone.utc).timestamp()
            at_us = int(at * 1e6)
            if at_us < start_us or at_us > end_us:
                continue
            second = int(at)
            if "connection received:" in text:
                attempts[second] = attempts.get(second, 0) + 1
                tenths[at_us // 100000] = tenths.get(at_us // 100000, 0) + 1
            elif "too many clients already" in text or "remaining connection slots are reserved" in text:
                refusals[second] = refusals.get(second, 0) + 1
    return attempts, refusals, tenths


def errors_between(processes, start_us, end_us):
    """Failed operations by kind (writes and reads) in the per-second lines between start_us and end_us."""
    writes, reads, ok_writes = {}, {}, 0
    for events in processes.values():
        for event in events:
            if event.get("event") != "second" or not (start_us <= event.get("at_us", 0) < end_us):
                continue
            ok_writes += event.get("writes", 0)
            for target, key in ((writes, "write_errors"), (reads, "read_errors")):
                for kind, count in event.get(key, {}).items():
                    target[kind] = target.get(kind, 0) + count
    return writes, reads, ok_writes


def load_sessions(work, phase):
    """{member: (role, {application_name: count})} of a sessions-<phase> file."""
    members = {}
    path = os.path.join(work, "sessions-" + phase)
    if os.path.exists(path):
        with open(path) as lines:
            for line in lines:
                parts = line.split()
                if len(parts) != 4:
                    continue
                member, role, application, count = parts
                apps = members.setdefault(member, (role, {}))[1]
                if application != "-":
                    apps[application] = int(count)
    return members


def median_sessions(work, phase, samples=3):
    """load_sessions() of phase-1 .. phase-<samples>, each member's and process's count the median."""
    loaded = [load_sessions(work, f"{phase}-{i}") for i in range(1, samples + 1)]
    loaded = [members for members in loaded if members] or [load_sessions(work, phase)]
    merged = {}
    for member in set().union(*loaded):
        role = next(members[member][0] for members in loaded if member in members)
        applications = set().union(*(members[member][1] for members in loaded if member in members))
        merged[member] = (role, {a: int(statistics.median(members.get(member, (role, {}))[1].get(a, 0) for members in loaded))
                                 for a in applications})
    return merged


def standby_balance(members, processes):
    standbys = sorted(m for m, (role, _) in members.items() if role in ("replica", "sync_standby"))
    totals = {m: sum(members[m][1].values()) for m in standbys}
    figure = {"per_standby": totals}
    if len(standbys) == 2:
        a, b = standbys
        figure["imbalance_per_process"] = round(abs(totals[a] - totals[b]) / max(processes, 1), 2)
        applications = set(members[a][1]) | set(members[b][1])
        figure["max_process_difference"] = max((abs(members[a][1].get(x, 0) - members[b][1].get(x, 0)) for x in applications), default=0)
    return figure


def primary_sessions(members):
    return {m: sum(apps.values()) for m, (role, apps) in members.items() if role in ("leader", "primary")}


def fmt_kinds(kinds):
    return ", ".join(f"{kind} {count}" for kind, count in sorted(kinds.items(), key=lambda e: -e[1])) or "none"


def report(args):
    processes = load_processes(args.work)
    phases = load_phases(args.work)
    watch = {}
    watch_path = os.path.join(args.work, "watch.json")
    if os.path.exists(watch_path) and os.path.getsize(watch_path):
        with open(watch_path) as f:
            watch = json.loads(f.readline())
    result = {"mode": args.mode, "commit": args.commit, "processes": args.processes, "pool": args.pool,
              "load": os.getloadavg()[0]}
    kill = phases.get("kill", 0)
    recovered_phase = phases.get("recovered", phases.get("end", kill))
    new_primary = watch.get("server")
    result["new_primary"] = new_primary
    if new_primary and kill:
        promoted = watch["at_us"]
        result["promotion_after_kill_ms"] = round((promoted - kill) / 1000)
        member = new_primary.split(":")[0].rsplit(".", 1)[1]
        log = os.path.join(args.patroni_dir, "node" + member, "data", "log", "postgresql.log")
        attempts, refusals, tenths = log_seconds(log, kill, recovered_phase)
        result["peak_attempts_per_second"] = max(attempts.values(), default=0)
        result["peak_attempts_per_100ms"] = max(tenths.values(), default=0)
        result["attempts_after_kill"] = sum(attempts.values())
        result["server_53300"] = sum(refusals.values())
        firsts = {n: first_write_on(events, new_primary, kill) for n, events in processes.items()}
        delays = [(at - promoted) / 1000 for at in firsts.values() if at is not None]
        result["processes_written_again"] = len(delays)
        result["not_written_again"] = sorted(n for n, at in firsts.items() if at is None)
        if delays:
            result["all_written_again_ms"] = round(max(delays))
            result["median_written_again_ms"] = round(statistics.median(delays))
            result["first_written_again_ms"] = round(min(delays))
            result["written_again_spread_ms"] = round(max(delays) - min(delays))
    application_53300 = 0
    for name, start, end in (("steady", phases.get("steady", 0), kill or phases.get("end", 0)),
                             ("failover", kill, recovered_phase),
                             ("standby", phases.get("standby-stop", recovered_phase), phases.get("end", recovered_phase) + 2000000)):
        writes, reads, ok = errors_between(processes, start, end)
        result[name] = {"writes_ok": ok, "write_errors": writes, "read_errors": reads}
        application_53300 += writes.get("53300", 0) + reads.get("53300", 0)
    result["application_53300"] = application_53300
    result["sessions_on_primary_steady"] = primary_sessions(load_sessions(args.work, "steady"))
    result["sessions_on_primary_after_failover"] = primary_sessions(load_sessions(args.work, "after-failover"))
    result["standby_balance_before"] = standby_balance(load_sessions(args.work, "before-standby-stop"), args.processes)
    result["standby_balance_after_return"] = standby_balance(median_sessions(args.work, "standby-back"), args.processes)

    print(f"fleet report ({args.mode}, commit {args.commit}): {args.processes} processes x Maximum Pool Size={args.pool}, load {result['load']:.1f}")
    print(f"  sessions on the primary: steady {result['sessions_on_primary_steady']}, after the failover {result['sessions_on_primary_after_failover']}")
    if "peak_attempts_per_second" in result:
        print(f"  kill -9 -> new primary {new_primary} accepts writes: {result['promotion_after_kill_ms']} ms")
        print(f"  peak connection attempts per second on the new primary: {result['peak_attempts_per_second']} "
              f"(per 100 ms: {result['peak_attempts_per_100ms']}; {result['attempts_after_kill']} attempts, {result['server_53300']} refused with 53300 by the server)")
        if "all_written_again_ms" in result:
            print(f"  promotion -> every process wrote on the new primary: {result['all_written_again_ms']} ms "
                  f"(first {result['first_written_again_ms']} ms, median {result['median_written_again_ms']} ms; {result['processes_written_again']}/{len(processes)} processes; "
                  f"first to last process: {result['written_again_spread_ms']} ms)")
        if result["not_written_again"]:
            print(f"  processes that never wrote on the new primary: {result['not_written_again']}")
    print(f"  53300 errors seen by the application: {application_53300} (goal 0)")
    for name in ("steady", "failover", "standby"):
        phase = result[name]
        print(f"  {name}: {phase['writes_ok']} writes; write errors: {fmt_kinds(phase['write_errors'])}; read errors: {fmt_kinds(phase['read_errors'])}")
    before, after = result["standby_balance_before"], result["standby_balance_after_return"]
    print(f"  sessions per standby, before one was stopped: {before.get('per_standby')}; after a standby returned: {after.get('per_standby')}")
    if "imbalance_per_process" in after:
        print(f"  standby imbalance |A - B| / processes after the return: {after['imbalance_per_process']} (goal <= 1); "
              f"largest difference of one process: {after['max_process_difference']}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(result, f, indent=1, sort_keys=True)
    failed = args.mode == "with-storm-control" and (application_53300 > 0 or result.get("not_written_again") or "all_written_again_ms" not in result)
    return 1 if failed else 0


def table(paths):
    """The runs' JSON reports (--json) side by side, one column per run: the table of doc/high-availability.md."""
    runs = []
    for path in paths:
        with open(path) as f:
            runs.append(json.load(f))
    rows = [
        ("mode", lambda r: r["mode"]),
        ("commit", lambda r: r["commit"]),
        ("sessions on the primary, steady", lambda r: sum(r["sessions_on_primary_steady"].values())),
        ("kill -9 -> new primary accepts writes (ms)", lambda r: r.get("promotion_after_kill_ms", "-")),
        ("peak connection attempts / s on the new primary", lambda r: r.get("peak_attempts_per_second", "-")),
        ("peak connection attempts / 100 ms", lambda r: r.get("peak_attempts_per_100ms", "-")),
        ("attempts on the new primary until recovered", lambda r: r.get("attempts_after_kill", "-")),
        ("refused by the server with 53300", lambda r: r.get("server_53300", "-")),
        ("sessions on the new primary after the failover", lambda r: sum(r["sessions_on_primary_after_failover"].values())),
        ("promotion -> every process wrote (ms)", lambda r: r.get("all_written_again_ms", "-")),
        ("promotion -> median process wrote (ms)", lambda r: r.get("median_written_again_ms", "-")),
        ("first -> last process wrote (ms)", lambda r: r.get("written_again_spread_ms", "-")),
        ("application-visible 53300 (goal 0)", lambda r: r["application_53300"]),
        ("other write errors, failover", lambda r: fmt_kinds(r["failover"]["write_errors"])),
        ("other read errors, failover", lambda r: fmt_kinds(r["failover"]["read_errors"])),
        ("errors, standby lost and back", lambda r: fmt_kinds({**r["standby"]["write_errors"], **{"read " + k: v for k, v in r["standby"]["read_errors"].items()}})),
        ("sessions per standby after it returned", lambda r: " / ".join(str(v) for v in r["standby_balance_after_return"].get("per_standby", {}).values())),
        ("standby imbalance: difference of the two totals / processes (goal <= 1)", lambda r: r["standby_balance_after_return"].get("imbalance_per_process", "-")),
        ("largest difference of one process", lambda r: r["standby_balance_after_return"].get("max_process_difference", "-")),
        ("load average (1 min) at the end", lambda r: round(r["load"], 1)),
    ]
    for i, (name, value) in enumerate(rows):
        print("| " + name + " | " + " | ".join(str(value(r)) for r in runs) + " |")
        if i == 0:
            print("|---|" + "---|" * len(runs))
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--work")
    parser.add_argument("--processes", type=int)
    parser.add_argument("--table", nargs="+", metavar="JSON")
    parser.add_argument("--check-written", nargs=2, metavar=("SERVER", "SINCE_US"))
    parser.add_argument("--mode", default="with-storm-control")
    parser.add_argument("--pool", type=int, default=5)
    parser.add_argument("--commit", default="?")
    parser.add_argument("--patroni-dir", default="")
    parser.add_argument("--json")
    args = parser.parse_args()
    if args.table:
        sys.exit(table(args.table))
    if not args.work or args.processes is None:
        parser.error("--work and --processes are needed (or --table)")
    sys.exit(check_written(args) if args.check_written else report(args))


if __name__ == "__main__":
    main()
