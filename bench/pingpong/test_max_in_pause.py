#!/usr/bin/env python3
"""Unit tests of bench/pingpong/max-in-pause.py: parsing, overlap and the chosen pause."""
import importlib.util
import os
import unittest

_here = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location('max_in_pause', os.path.join(_here, 'max-in-pause.py'))
M = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(M)

RUN = [
    'round trips: 100000',
    'slow round trip: 1000000000 6000.00',   # 1.000-1.006 s
    'slow round trip: 2000000000 150.50',    # 2.0000000-2.0001505 s
    'max us: 6000.00',
]
LOG = [
    '[990000000ns] Using G1',
    # ends at 1.0055 s after 5 ms: 1.0005-1.0055, inside the first round trip
    '[1005500000ns] Safepoint "G1CollectForAllocation", Time since last: 1 ns, Reaching safepoint: 1 ns,'
    ' At safepoint: 4999998 ns, Leaving safepoint: 1 ns, Total: 5000000 ns, Threads: 0 runnable, 16 total',
    # ends at 1.0061 s after 0.2 ms: 1.0059-1.0061, overlaps the first by 0.1 ms
    '[1006100000ns] Safepoint "Cleanup", Time since last: 1 ns, Reaching safepoint: 1 ns,'
    ' At safepoint: 199998 ns, Leaving safepoint: 1 ns, Total: 200000 ns, Threads: 0 runnable, 16 total',
    # ends before the second round trip starts
    '[1999999000ns] Safepoint "Cleanup", Time since last: 1 ns, Reaching safepoint: 1 ns,'
    ' At safepoint: 998 ns, Leaving safepoint: 1 ns, Total: 1000 ns, Threads: 0 runnable, 16 total',
]


class MaxInPauseTest(unittest.TestCase):
    def test_parses_slow_round_trips_in_order(self):
        self.assertEqual(M.slow_round_trips(RUN),
                         [(1000000000, 1006000000, 6000.0), (2000000000, 2000150500, 150.5)])

    def test_parses_pauses_from_their_end_and_total(self):
        self.assertEqual(M.pauses(LOG), [(1000500000, 1005500000, 'G1CollectForAllocation'),
                                         (1005900000, 1006100000, 'Cleanup'),
                                         (1999998000, 1999999000, 'Cleanup')])

    def test_picks_the_pause_that_overlaps_most(self):
        slow, vm = M.slow_round_trips(RUN), M.pauses(LOG)
        self.assertEqual(M.cause(slow[0], vm), ('G1CollectForAllocation', 5000000, 5000000))
        self.assertEqual(M.describe(slow[0], M.cause(slow[0], vm)),
                         '6000.0 us: in safepoint G1CollectForAllocation (pause 5.00 ms, overlap 5.00 ms)')

    def test_a_pause_that_ends_before_the_round_trip_is_not_its_cause(self):
        slow, vm = M.slow_round_trips(RUN), M.pauses(LOG)
        self.assertIsNone(M.cause(slow[1], vm))
        self.assertEqual(M.describe(slow[1], None), '150.5 us: no VM pause')


if __name__ == '__main__':
    unittest.main()
