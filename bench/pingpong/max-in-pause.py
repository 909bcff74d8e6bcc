#!/usr/bin/env python3
"""Says whether a run's slowest round trips overlap a VM pause (safepoint).

Usage: max-in-pause.py RUN_OUTPUT SAFEPOINT_LOG

RUN_OUTPUT is Latency's output with -DLatency.slowest=N: lines
"slow round trip: START_NS US", slowest first, START_NS from System.nanoTime.
SAFEPOINT_LOG is the same JVM's -Xlog:safepoint:file=...:timenanos: each
"Safepoint" line is stamped (os::javaTimeNanos, the clock of System.nanoTime)
when the safepoint ended, and gives its "Total" time in ns.

Prints one line per slow round trip: its time, and the pause it overlaps most
(operation, pause length, overlap) or "no VM pause". latency.sh --max-cause
runs it after every run.
"""
import re
import sys

SLOW = re.compile(r'^slow round trip: (\d+) ([0-9.]+)$')
SAFEPOINT = re.compile(r'^\[(\d+)ns\] Safepoint "([^"]+)",.* Total: (\d+) ns')


def slow_round_trips(lines):
    """[(start_ns, end_ns, us)] from Latency's output, in its order (slowest first)."""
    out = []
    for line in lines:
        m = SLOW.match(line.strip())
        if m:
            start, us = int(m.group(1)), float(m.group(2))
            out.append((start, start + int(us * 1000), us))
    return out


def pauses(lines):
    """[(start_ns, end_ns, operation)] from a safepoint log decorated with timenanos."""
    out = []
    for line in lines:
        m = SAFEPOINT.match(line.strip())
        if m:
            end, total = int(m.group(1)), int(m.group(3))
            out.append((end - total, end, m.group(2)))
    return out


def overlap(a_start, a_end, b_start, b_end):
    return max(0, min(a_end, b_end) - max(a_start, b_start))


def cause(round_trip, vm_pauses):
    """The pause that overlaps the round trip most, as (operation, pause_ns, overlap_ns), or None."""
    start, end, _ = round_trip
    best = None
    for p_start, p_end, op in vm_pauses:
        o = overlap(start, end, p_start, p_end)
        if o > 0 and (best is None or o > best[2]):
            best = (op, p_end - p_start, o)
    return best


def describe(round_trip, found):
    text = '%.1f us' % round_trip[2]
    if found is None:
        return text + ': no VM pause'
    op, pause_ns, overlap_ns = found
    return text + ': in safepoint %s (pause %.2f ms, overlap %.2f ms)' % (op, pause_ns / 1e6, overlap_ns / 1e6)


def main(argv):
    if len(argv) != 3:
        sys.exit('usage: max-in-pause.py RUN_OUTPUT SAFEPOINT_LOG')
    with open(argv[1]) as f:
        slow = slow_round_trips(f)
    with open(argv[2]) as f:
        vm_pauses = pauses(f)
    if not slow:
        sys.exit('max-in-pause.py: no "slow round trip" lines in %s (run Latency with -DLatency.slowest=N)'
                 % argv[1])
    for rt in slow:
        print(describe(rt, cause(rt, vm_pauses)))


if __name__ == '__main__':
    main(sys.argv)
