#!/usr/bin/env python3
"""Unit tests of the bench report's verdicts (verdict.py, report.py): run by ctest as
BlueTuskBenchVerdictTest (testsuite/CMakeLists.txt), or by hand: python3 testsuite/benchmark/test_verdict.py"""

import io
import json
import os
import sys
import tempfile
import unittest
from contextlib import redirect_stdout

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import report  # noqa: E402
import verdict  # noqa: E402


def entry(name, real_time, unit="us", **counters):
    """One repetition of a Google Benchmark JSON run."""
    value = {"name": name + "/repeats:9/real_time", "run_name": name + "/real_time", "run_type": "iteration",
             "real_time": real_time, "cpu_time": real_time / 3, "time_unit": unit, "iterations": 100}
    value.update(counters)
    return value


def interleaved(first, first_times, second, second_times, unit="us"):
    """Repetitions of two benchmarks alternating, as --benchmark_enable_random_interleaving runs them."""
    out = []
    for a, b in zip(first_times, second_times):
        out += [entry(first, a, unit), entry(second, b, unit)]
    return out


class VerdictTest(unittest.TestCase):

    def testWholeIntervalUnderTargetPasses(self):
        self.assertEqual(verdict.verdict(0.80, 0.95, 1.0), verdict.PASS)
        self.assertEqual(verdict.verdict(0.80, 1.0, 1.0), verdict.PASS)   # at the target: met (<=)

    def testIntervalSpanningTargetIsAtParity(self):
        self.assertEqual(verdict.verdict(0.97, 1.04, 1.0), verdict.AT_PARITY)
        self.assertEqual(verdict.verdict(1.0, 1.01, 1.0), verdict.AT_PARITY)

    def testWholeIntervalAboveTargetFails(self):
        self.assertEqual(verdict.verdict(1.01, 1.20, 1.0), verdict.FAIL)
        self.assertEqual(verdict.verdict(1.63, 1.71, 1.5), verdict.FAIL)

    def testPointIntervalIsThePlainComparison(self):
        self.assertEqual(verdict.verdict(0.9, 0.9, 1.0), verdict.PASS)
        self.assertEqual(verdict.verdict(1.1, 1.1, 1.0), verdict.FAIL)

    def testInvertedIntervalIsRejected(self):
        with self.assertRaises(ValueError):
            verdict.verdict(1.2, 1.1, 1.0)

    def testCheckFailsOnFailErrorMissingAndAtParityOnlyWhenStrict(self):
        for status in (verdict.FAIL, "error", "missing"):
            self.assertTrue(verdict.fails_check(status))
        self.assertFalse(verdict.fails_check(verdict.PASS))
        self.assertFalse(verdict.fails_check(verdict.AT_PARITY))
        self.assertTrue(verdict.fails_check(verdict.AT_PARITY, strict=True))
        self.assertFalse(verdict.fails_check("info", strict=True))


class IntervalTest(unittest.TestCase):

    def testConstantSamplesGiveThePointRatio(self):
        low, high = verdict.ratio_interval([2.0] * 7, [4.0] * 7, "row")
        self.assertAlmostEqual(low, 0.5)
        self.assertAlmostEqual(high, 0.5)

    def testSameInputSameInterval(self):
        a = [77.4, 78.5, 80.1, 76.9, 79.0, 91.2, 77.7, 78.0, 77.9]
        b = [77.5, 77.4, 79.9, 78.8, 77.0, 77.3, 85.0, 77.6, 78.1]
        self.assertEqual(verdict.ratio_interval(a, b, "select1_simple"), verdict.ratio_interval(a, b, "select1_simple"))

    def testIntervalHoldsTheMedianRatioAndSpansTheNoise(self):
        a = [77.4, 78.5, 80.1, 76.9, 79.0, 91.2, 77.7, 78.0, 77.9]
        b = [77.5, 77.4, 79.9, 78.8, 77.0, 77.3, 85.0, 77.6, 78.1]
        low, high = verdict.ratio_interval(a, b, "select1_simple")
        point = 78.0 / 77.6
        self.assertLessEqual(low, point)
        self.assertGreaterEqual(high, point)
        self.assertLess(low, 1.0)      # parity: the same distribution on both sides
        self.assertGreater(high, 1.0)
        # Bounded by the extreme ratios the resamples can form.
        self.assertGreaterEqual(low, min(a) / max(b))
        self.assertLessEqual(high, max(a) / min(b))

    def testClearlySeparatedSidesExcludeParity(self):
        low, high = verdict.ratio_interval([5.2, 5.3, 5.25, 5.21, 5.28, 5.3, 5.22], [9.3, 9.2, 9.4, 9.25, 9.31, 9.28, 9.22], "typed")
        self.assertLess(high, 0.6)
        self.assertGreater(low, 0.55)

    def testUnequalCountsAndAbsoluteInterval(self):
        low, high = verdict.ratio_interval([3.4, 3.5, 3.47, 3.42, 3.44], [2.0, 2.1, 2.03, 2.05, 2.02, 2.04, 2.01], "7c")
        self.assertGreater(low, 1.6)
        self.assertLess(high, 1.8)
        low, high = verdict.ratio_interval([90.0, 89.3, 91.0, 88.9, 90.2], None, "pool_checkout")
        self.assertGreaterEqual(low, 88.9)
        self.assertLessEqual(high, 91.0)

    def testZeroBaselineGivesAnOpenInterval(self):
        low, high = verdict.ratio_interval([1.0, 1.0, 1.0], [0.0, 0.0, 2.0], "zero")
        self.assertEqual(high, float("inf"))
        self.assertEqual(verdict.verdict(low, high, 1.0), verdict.AT_PARITY)

    def testEmptySideIsRejected(self):
        with self.assertRaises(ValueError):
            verdict.ratio_interval([], [1.0], "row")
        with self.assertRaises(ValueError):
            verdict.ratio_interval([1.0], [], "row")


class ReportTest(unittest.TestCase):
    """evaluate() and main() on a benchmarks.json written here."""

    ROW = next(r for r in report.ROWS if r["id"] == "3")   # select1_simple, <= 1 x libpq

    def evaluate(self, bluetusk, libpq):
        return report.evaluate(self.ROW, report.collect(interleaved("select1_simple/bluetusk", bluetusk,
                                                                    "select1_simple/libpq", libpq)))

    def testFasterEverywherePasses(self):
        result = self.evaluate([60, 61, 62, 60.5, 61.5, 60.2, 61.1], [78, 77, 79, 78.5, 77.5, 78.2, 77.9])
        self.assertEqual(result["status"], "pass")
        self.assertTrue(result["pass"])
        self.assertLess(result["ratio_high"], 1.0)
        self.assertAlmostEqual(result["ratio"], 61 / 78)

    def testNoiseAroundTheTargetIsAtParity(self):
        result = self.evaluate([77.4, 78.5, 80.1, 76.9, 79.0, 91.2, 77.7, 78.0, 77.9],
                               [77.5, 77.4, 79.9, 78.8, 77.0, 77.3, 85.0, 77.6, 78.1])
        self.assertEqual(result["status"], "at parity")
        self.assertIsNone(result["pass"])
        self.assertLess(result["ratio_low"], 1.0)
        self.assertGreater(result["ratio_high"], 1.0)

    def testSlowerEverywhereFails(self):
        result = self.evaluate([90, 91, 92, 90.5, 91.5, 90.2, 91.1], [78, 77, 79, 78.5, 77.5, 78.2, 77.9])
        self.assertEqual(result["status"], "FAIL")
        self.assertFalse(result["pass"])
        self.assertGreater(result["ratio_low"], 1.0)

    def testAbsoluteTargetUsesTheIntervalOfTheMedian(self):
        row = next(r for r in report.ROWS if r["id"] == "6a")   # <= 200 ns
        runs = report.collect([entry("pool_checkout/bluetusk", t, "ns") for t in (150, 190, 250, 260, 195)])
        result = report.evaluate(row, runs)
        self.assertEqual(result["status"], "at parity")
        runs = report.collect([entry("pool_checkout/bluetusk", t, "ns") for t in (90, 89, 91, 92, 90)])
        self.assertEqual(report.evaluate(row, runs)["status"], "pass")

    def testTableShowsTheInterval(self):
        result = self.evaluate([60, 61, 62, 60.5, 61.5, 60.2, 61.1], [78, 77, 79, 78.5, 77.5, 78.2, 77.9])
        line = report.table([result]).splitlines()[2]
        self.assertIn("0.78 (", line)
        self.assertIn("| pass |", line)

    def run_main(self, bluetusk, libpq, *flags):
        with tempfile.TemporaryDirectory() as directory:
            source = os.path.join(directory, "benchmarks.json")
            with open(source, "w") as f:
                json.dump({"context": {}, "benchmarks": interleaved("select1_simple/bluetusk", bluetusk,
                                                                    "select1_simple/libpq", libpq)}, f)
            output = io.StringIO()
            with redirect_stdout(output):
                status = report.main(["report.py", source, os.path.join(directory, "results.json"), *flags])
            with open(os.path.join(directory, "results.json")) as f:
                document = json.load(f)
        return status, document, output.getvalue()

    def testCheckExitStatusFollowsTheVerdicts(self):
        # Only row 3 is measured: every other goal row is "missing", so --check fails whatever row 3 says;
        # the document's row 3 carries the verdict.
        status, document, text = self.run_main([77.4, 78.5, 80.1, 76.9, 79.0, 91.2, 77.7, 78.0, 77.9],
                                               [77.5, 77.4, 79.9, 78.8, 77.0, 77.3, 85.0, 77.6, 78.1], "--check")
        self.assertEqual(status, 1)
        row = next(r for r in document["benchmarks"] if r["id"] == "3")
        self.assertEqual(row["status"], "at parity")
        self.assertIn("1 at parity (3 select1_simple)", text)
        # rows without a target are no goals, measured or not
        goals = sum(1 for r in report.ROWS if r["kind"])
        self.assertIn("%d rows with a target: 0 pass, 1 at parity" % goals, text)
        self.assertIn(", %d miss (" % (goals - 1), text)
        self.assertNotIn("7a multihost_sequential", text)

    def testCheckPassesAtParityUnlessStrict(self):
        original = report.ROWS
        report.ROWS = [self.ROW]
        try:
            noisy = ([77.4, 78.5, 80.1, 76.9, 79.0, 91.2, 77.7, 78.0, 77.9],
                     [77.5, 77.4, 79.9, 78.8, 77.0, 77.3, 85.0, 77.6, 78.1])
            self.assertEqual(self.run_main(*noisy, "--check")[0], 0)
            self.assertEqual(self.run_main(*noisy, "--check", "--strict")[0], 1)
            self.assertEqual(self.run_main(*noisy)[0], 0)   # without --check: always 0
            slower = ([90, 91, 92, 90.5, 91.5, 90.2, 91.1], [78, 77, 79, 78.5, 77.5, 78.2, 77.9])
            status, document, text = self.run_main(*slower, "--check")
            self.assertEqual(status, 1)
            self.assertFalse(document["passed"])
            self.assertIn("1 miss (3 select1_simple)", text)
        finally:
            report.ROWS = original


if __name__ == "__main__":
    unittest.main()
