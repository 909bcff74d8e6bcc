#!/usr/bin/env python3
"""Unit tests of bench/lib/report.py: the CPU-speed line of every page's header."""
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import report as R  # noqa: E402

META = {"date_start": "2026-11-29 10:00:00 UTC", "date_end": "2026-11-29 10:05:00 UTC",
        "command": "bench/x.sh", "nproc": "2", "git": "abc1234"}


def header(**extra):
    return "\n".join(R.header_lines({**META, **extra}, "T", "bench/x.sh", 5))


class CpuSpeed(unittest.TestCase):
    def test_spread_over_before_and_after(self):
        self.assertAlmostEqual(R.cpu_speed_spread({"cpu_speed_start": "100-120 ms",
                                                   "cpu_speed_end": "90-180 ms"}), 2.0)

    def test_not_measured(self):
        self.assertIsNone(R.cpu_speed_spread({}))
        self.assertIsNone(R.cpu_speed_spread({"cpu_speed_start": "n/a", "cpu_speed_end": "n/a"}))
        self.assertNotIn("CPU speed", header())

    def test_steady_cpus_give_the_line_without_a_warning(self):
        h = header(cpu_speed_start="69-91 ms", cpu_speed_end="70-95 ms")
        self.assertIn("- CPU speed (a fixed awk loop pinned to each CPU, 3 times, ms per loop): "
                      "before 69-91 ms, after 70-95 ms", h)
        self.assertNotIn("changed speed", h)

    def test_cpus_that_change_speed_are_stamped(self):
        h = header(cpu_speed_start="113-200 ms", cpu_speed_end="120-428 ms")
        self.assertIn("**The CPUs changed speed: the same loop took up to 3.8 × as long", h)

    def test_the_warning_starts_above_its_limit(self):
        self.assertNotIn("changed speed", header(cpu_speed_start="100-150 ms", cpu_speed_end="100-150 ms"))
        self.assertIn("changed speed", header(cpu_speed_start="100-151 ms", cpu_speed_end="100-150 ms"))


if __name__ == "__main__":
    unittest.main()
