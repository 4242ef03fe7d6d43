#!/usr/bin/env python3
"""Turns the curve benchmarks of BlueTuskBenchmarks (CurveBenchmarks.cpp) into data files and PNG plots.

Usage: curves.py BENCHMARK_JSON OUT_DIR

Writes OUT_DIR/curves-<curve>.dat (one line per point: x and the medians over the repetitions), a
markdown table OUT_DIR/curves.md, and, when gnuplot is installed (Debian's gnuplot-nox), one PNG per curve:
  curves-threads.png    pooled SELECT 1 over 3 nodes x Maximum Pool Size 4: queries per second, and the
                        checkout wait p50 / p99, against 1..64 threads
  curves-endpoints.png  idle checkout + return against the number of endpoints in the host list
  curves-addresses.png  new connection against the number of addresses a name resolves to (all but the
                        last refusing), BlueTusk and libpq
Python 3 standard library only (report.py's collect()).
"""

import os
import re
import shutil
import statistics
import subprocess
import sys
import json

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import report  # noqa: E402

# curve: (x label, [(column name, side, metric, scale to the shown unit)], gnuplot plot commands)
CURVES = {
    "threads": ("threads", [
        ("queries_per_second", "bluetusk", "queries_per_second", 1.0),
        ("wait_p50_us", "bluetusk", "wait_p50_ns", 1e-3),
        ("wait_p99_us", "bluetusk", "wait_p99_ns", 1e-3),
        ("thread_share", "bluetusk", "thread_share", 1.0),
        ("jain", "bluetusk", "jain", 1.0),
        ("sessions_open", "bluetusk", "sessions_open", 1.0),
        ("sessions_created", "bluetusk", "sessions_created", 1.0),
        ("fifo_anchor_qps", "libpq_fifo", "queries_per_second", 1.0),
        ("barging_anchor_qps", "libpq_barging", "queries_per_second", 1.0),
    ], """set title "Pooled SELECT 1, 3 nodes x Maximum Pool Size 4 (%(stamp)s)"
set xlabel "threads"; set logscale x 2
set ylabel "queries per second"; set y2label "checkout wait (us)"; set logscale y2; set y2tics; set ytics nomirror
set yrange [0:*]
plot "%(dat)s" using 1:2 with linespoints title "queries/s" axes x1y1, \\
     "%(dat)s" using 1:3 with linespoints title "wait p50 (us)" axes x1y2, \\
     "%(dat)s" using 1:4 with linespoints title "wait p99 (us)" axes x1y2, \\
     "%(dat)s" using 1:9 with points pointtype 7 title "libpq FIFO pool queries/s" axes x1y1, \\
     "%(dat)s" using 1:10 with points pointtype 5 title "libpq barging pool queries/s" axes x1y1
"""),
    "endpoints": ("endpoints", [
        ("checkout_ns", "bluetusk", "time", 1.0),
    ], """set title "Idle checkout + return, 1 thread (%(stamp)s)"
set xlabel "endpoints in the host list"; set logscale x
set ylabel "ns per checkout + return"; set yrange [0:*]
plot "%(dat)s" using 1:2 with linespoints title "BlueTusk"
"""),
    "addresses": ("addresses", [
        ("bluetusk_ms", "bluetusk", "time", 1e-6),
        ("libpq_ms", "libpq", "time", 1e-6),
    ], """set title "New connection, all addresses but the last refusing (%(stamp)s)"
set xlabel "addresses"; set logscale x 2
set ylabel "ms per open + close"; set yrange [0:*]
plot "%(dat)s" using 1:2 with linespoints title "BlueTusk (one name, StaticResolver)", \\
     "%(dat)s" using 1:3 with linespoints title "libpq (host list)"
"""),
}


def points(runs, curve):
    """{x: {side: run}} for the benchmarks named curve_<curve>_<x>/<side>."""
    found = {}
    for name in runs:
        m = re.fullmatch(r"curve_%s_(\d+)/(\w+)" % curve, name)
        if m:
            found.setdefault(int(m.group(1)), {})[m.group(2)] = runs[name]
    return found


def value(run, metric, scale):
    samples = run["samples"].get(metric) if run else None
    return statistics.median(samples) * scale if samples else None


def write_curve(out, curve, runs, stamp):
    xlabel, columns, plot = CURVES[curve]
    found = points(runs, curve)
    if not found:
        return None
    dat = os.path.join(out, "curves-%s.dat" % curve)
    rows = []
    with open(dat, "w") as f:
        f.write("# %s %s\n" % (xlabel, " ".join(c[0] for c in columns)))
        for x in sorted(found):
            vals = [value(found[x].get(side), metric, scale) for _, side, metric, scale in columns]
            rows.append((x, vals))
            f.write("%d %s\n" % (x, " ".join("NaN" if v is None else "%.6g" % v for v in vals)))
    png = None
    if shutil.which("gnuplot"):
        png = os.path.join(out, "curves-%s.png" % curve)
        script = "set terminal pngcairo size 900,540 noenhanced\nset output \"%s\"\nset grid\nset key top left\n" % png
        script += plot % {"dat": dat, "stamp": stamp}
        subprocess.run(["gnuplot"], input=script, text=True, check=True)
    lines = ["| %s | %s |" % (xlabel, " | ".join(c[0] for c in columns)), "|---" * (len(columns) + 1) + "|"]
    for x, vals in rows:
        lines.append("| %d | %s |" % (x, " | ".join(report.fmt(v) for v in vals)))
    return "\n".join(lines), png


def main(argv):
    if len(argv) != 3:
        sys.stderr.write(__doc__)
        return 2
    with open(argv[1]) as f:
        raw = json.load(f)
    context = raw.get("context", {})
    stamp = "commit %s, load %s" % (os.environ.get("BLUETUSK_BENCH_COMMIT", "?"), context.get("load_avg", "?"))
    runs = report.collect(raw.get("benchmarks", []))
    text = []
    for curve in CURVES:
        written = write_curve(argv[2], curve, runs, stamp)
        if written:
            table, png = written
            text.append("curve %s%s\n%s\n" % (curve, " (" + png + ")" if png else " (no gnuplot: no PNG)", table))
    with open(os.path.join(argv[2], "curves.md"), "w") as f:
        f.write("\n".join(text))
    print("\n".join(text) if text else "no curve benchmarks in this run")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
