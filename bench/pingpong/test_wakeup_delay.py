#!/usr/bin/env python3
"""Unit tests of bench/pingpong/wakeup-delay.py: waits, preemptions and the JVM filter."""
import contextlib
import importlib.util
import io
import math
import os
import sys
import unittest

_here = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location('wakeup_delay', os.path.join(_here, 'wakeup-delay.py'))
W = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(W)

JVM, ECHO, CARRIER, OTHER_PROC = 100, 101, 102, 900


def wakeup(pid, tid, t, comm, target, cpu=None, target_cpu=1):
    at = f' [{cpu:03d}]' if cpu is not None else ''
    return (f' {pid}/{tid}{at}  {t:.6f}: sched:sched_wakeup: comm={comm} pid={target} prio=120 '
            f'target_cpu={target_cpu:03d}')


def switch(pid, tid, t, prev_comm, prev_pid, state, next_comm, next_pid):
    return (f' {pid}/{tid}  {t:.6f}: sched:sched_switch: prev_comm={prev_comm} prev_pid={prev_pid} '
            f'prev_prio=120 prev_state={state} ==> next_comm={next_comm} next_pid={next_pid} next_prio=120')


TRACE = [
    # the echo server sleeps, the client's carrier wakes it, it runs 10 µs later on a preempted carrier
    switch(JVM, ECHO, 1.000000, 'echo-server', ECHO, 'S', 'swapper/1', 0),
    wakeup(JVM, CARRIER, 1.000100, 'echo-server', ECHO),
    switch(JVM, CARRIER, 1.000110, 'ForkJoinPool-1-', CARRIER, 'R', 'echo-server', ECHO),
    # a wakeup while it runs is not a wait, and the later switch-in (after it was preempted) is not one either
    wakeup(JVM, CARRIER, 1.000120, 'echo-server', ECHO),
    switch(JVM, ECHO, 1.000130, 'echo-server', ECHO, 'R', 'ForkJoinPool-1-', CARRIER),
    switch(JVM, CARRIER, 1.000200, 'ForkJoinPool-1-', CARRIER, 'S', 'echo-server', ECHO),
    # another process's threads are not counted
    switch(OTHER_PROC, OTHER_PROC, 1.000300, 'kworker', OTHER_PROC, 'R', 'swapper/0', 0),
    wakeup(OTHER_PROC, OTHER_PROC, 1.000310, 'kworker', OTHER_PROC),
    switch(0, 0, 1.000320, 'swapper/0', 0, 'R', 'kworker', OTHER_PROC),
    # the carrier, woken from idle: runs 30 µs later
    wakeup(JVM, ECHO, 1.000400, 'ForkJoinPool-1-', CARRIER),
    switch(0, 0, 1.000430, 'swapper/0', 0, 'R', 'ForkJoinPool-1-', CARRIER),
    # the echo server preempted once more
    switch(JVM, ECHO, 1.000500, 'echo-server', ECHO, 'R', 'swapper/1', 0),
    'garbage line that perf would not print',
]


class Measure(unittest.TestCase):
    def test_waits_and_preemptions(self):
        v = dict(zip([(r, s) for r in W.ROLES for s in W.STATS], W.measure(TRACE, 2)))
        self.assertEqual(v[('echo server', 'wakeups/rt')], 0.5)
        self.assertAlmostEqual(v[('echo server', 'wait p50 µs')], 10, places=3)
        self.assertEqual(v[('echo server', 'preempted/rt')], 1.0)
        self.assertEqual(v[('carrier', 'wakeups/rt')], 0.5)
        self.assertAlmostEqual(v[('carrier', 'wait p99 µs')], 30, places=3)
        self.assertEqual(v[('carrier', 'preempted/rt')], 0.5)
        self.assertEqual(v[('other JVM thread', 'wakeups/rt')], 0)
        self.assertTrue(math.isnan(v[('other JVM thread', 'wait p50 µs')]))

    def test_echo_on_the_wakers_cpu(self):
        trace = [
            switch(JVM, ECHO, 1.000000, 'echo-server', ECHO, 'S', 'swapper/1', 0),
            # woken onto the waker's CPU 0, then (a second wakeup while queued does not count) runs
            wakeup(JVM, CARRIER, 1.000100, 'echo-server', ECHO, cpu=0, target_cpu=0),
            wakeup(JVM, CARRIER, 1.000105, 'echo-server', ECHO, cpu=1, target_cpu=1),
            switch(JVM, CARRIER, 1.000110, 'ForkJoinPool-1-', CARRIER, 'R', 'echo-server', ECHO),
            switch(JVM, ECHO, 1.000200, 'echo-server', ECHO, 'S', 'ForkJoinPool-1-', CARRIER),
            # woken onto the other CPU, twice; a carrier's wakeup onto its waker's CPU is not the echo server's
            wakeup(JVM, CARRIER, 1.000300, 'echo-server', ECHO, cpu=0, target_cpu=1),
            switch(0, 0, 1.000310, 'swapper/1', 0, 'R', 'echo-server', ECHO),
            switch(JVM, ECHO, 1.000400, 'echo-server', ECHO, 'S', 'swapper/1', 0),
            wakeup(JVM, ECHO, 1.000410, 'ForkJoinPool-1-', CARRIER, cpu=1, target_cpu=1),
            wakeup(JVM, CARRIER, 1.000500, 'echo-server', ECHO, cpu=0, target_cpu=1),
            switch(0, 0, 1.000510, 'swapper/1', 0, 'R', 'echo-server', ECHO),
        ]
        v = W.measure(trace, 3, 12.5)
        self.assertAlmostEqual(v[-2], 1 / 3)
        self.assertEqual(v[-1], 12.5)

    def test_no_echo_server_is_an_error(self):
        with self.assertRaisesRegex(SystemExit, 'echo-server'):
            W.measure(TRACE[6:9], 1)

    def test_summary_ratio(self):
        width = len(W.ROLES) * len(W.STATS) + len(W.RUN_STATS)
        def line(v, run, wait):
            vals = [0.0] * width
            vals[1] = wait
            vals[-1] = 11.0 + run
            return f'{v} {run} 1000 0.1 0.2 ' + ' '.join(map(str, vals)) + '\n'
        lines = [line('UP', 1, 10), line('M4', 1, 12), line('UP', 2, 10), line('M4', 2, 8)]
        out = io.StringIO()
        with contextlib.redirect_stdout(out), _stdin(''.join(lines)):
            W.summary('UP')
        self.assertIn('M4 ÷ UP per pair: 1.000 [0.800–1.200] over 2 pairs', out.getvalue())
        self.assertIn('| M4 | 2 | 0.000 | 13.000 |', out.getvalue())


@contextlib.contextmanager
def _stdin(text):
    old = sys.stdin
    sys.stdin = io.StringIO(text)
    try:
        yield
    finally:
        sys.stdin = old


if __name__ == '__main__':
    unittest.main()
