"""The verdict of a goal row of the bench report: the ratio's 95 % interval and pass / at parity / FAIL.

Used by report.py (scripts/bench); tested by test_verdict.py (ctest: BlueTuskBenchVerdictTest).

scripts/bench runs Google Benchmark with --benchmark_enable_random_interleaving=true: the repetitions of
BlueTusk's benchmark and of its anchor run alternately in a random order, so a burst of load on the machine
lands on both sides alike. A row's ratio is median(BlueTusk) / median(anchor). Its spread is a percentile
bootstrap: RESAMPLES times, each side's repetitions are drawn again with replacement (independently: the two
sides may have different counts, 7c's anchor is row 1's BlueTusk open), the ratio of the two medians is
computed, and the 2.5th and 97.5th percentiles of those ratios are the interval. The generator is seeded from
the row's name, so the same benchmarks.json always gives the same interval.

The verdict compares the whole interval with the target (lower is better everywhere):
  high <= target          -> "pass"       (the whole interval meets the target)
  low > target            -> "FAIL"       (the whole interval misses it)
  low <= target < high    -> "at parity"  (the noise does not decide; the interval is shown)
A row with one repetition per side (scripts/bench --quick, the 30-draw rows) has a point interval: its
verdict is the plain comparison of the medians. report.py --check fails (exit 1) on FAIL, error and
missing only; --strict also on "at parity".

Python 3 standard library only.
"""

import math
import random
import statistics
import zlib

RESAMPLES = 2000
LEVEL = 0.95

PASS = "pass"
AT_PARITY = "at parity"
FAIL = "FAIL"


def percentile(ordered, fraction):
    """The value at fraction (0..1) of an ascending list, interpolating between neighbours."""
    if not ordered:
        raise ValueError("percentile of no values")
    position = fraction * (len(ordered) - 1)
    below = int(position)
    above = min(below + 1, len(ordered) - 1)
    low, high = ordered[below], ordered[above]
    if position == below or low == high:
        return low
    if math.isinf(high):
        return high
    return low + (high - low) * (position - below)


def ratio_interval(samples, baseline_samples, seed, resamples=RESAMPLES, level=LEVEL):
    """The percentile-bootstrap interval (low, high) at level of median(samples) / median(baseline_samples).

    baseline_samples None: the interval of median(samples) itself (an absolute target). seed: any string
    (the row's name); the same inputs give the same interval. A resample whose baseline median is 0 counts
    as an infinite ratio. Raises ValueError for an empty side."""
    if not samples or (baseline_samples is not None and not baseline_samples):
        raise ValueError("ratio_interval needs at least one sample per side")
    rng = random.Random(zlib.crc32(seed.encode("utf-8")))
    ratios = []
    for _ in range(resamples):
        top = statistics.median(rng.choices(samples, k=len(samples)))
        if baseline_samples is None:
            ratios.append(top)
            continue
        bottom = statistics.median(rng.choices(baseline_samples, k=len(baseline_samples)))
        ratios.append(top / bottom if bottom else float("inf"))   # a resample of zeros: no bound
    ratios.sort()
    tail = (1.0 - level) / 2.0
    return percentile(ratios, tail), percentile(ratios, 1.0 - tail)


def verdict(low, high, target):
    """pass, at parity or FAIL for an interval [low, high] against an upper target (lower is better)."""
    if low > high:
        raise ValueError("verdict: interval low %r above high %r" % (low, high))
    if high <= target:
        return PASS
    if low > target:
        return FAIL
    return AT_PARITY


def fails_check(status, strict=False):
    """Whether a row's status makes report.py --check exit 1: FAIL, error and missing always,
    at parity only with strict."""
    if status in (FAIL, "error", "missing"):
        return True
    return strict and status == AT_PARITY
