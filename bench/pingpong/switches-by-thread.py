#!/usr/bin/env python3
"""Counts for switches-by-thread.sh.

--label "VARIANT RUN ROUND_TRIPS LOAD_BEFORE LOAD_AFTER": reads `perf script -F trace`
of sched:sched_switch on stdin, prints one line: the label, then per role and kind
the switch-outs per round trip.
--summary BASELINE: reads those lines on stdin, prints a Markdown table: median
[min-max] per variant, then the per-pair ratio of the total to BASELINE's.
"""
import re
import statistics
import sys

ROLES = ["carrier", "echo server", "poller thread", "other JVM thread"]
KINDS = ["slept", "preempted"]
COLUMNS = [(r, k) for r in ROLES for k in KINDS]
SWITCH = re.compile(r"prev_comm=(.*?) prev_pid=\d+ prev_prio=\d+ prev_state=(\S+)")


def role(comm):
    if comm.startswith("ForkJoi"):
        return "carrier"
    if comm == "echo-server":
        return "echo server"
    if "Poller" in comm or comm.startswith(("Read-Po", "Write-P")):
        return "poller thread"
    return "other JVM thread"


def count(label):
    variant, run, total, load0, load1 = label.split()
    counts = dict.fromkeys(COLUMNS, 0)
    for line in sys.stdin:
        m = SWITCH.search(line)
        if m:
            kind = "preempted" if m.group(2).startswith("R") else "slept"
            counts[(role(m.group(1)), kind)] += 1
    per_rt = [counts[c] / float(total) for c in COLUMNS]
    print(variant, run, total, load0, load1, " ".join(f"{x:.5f}" for x in per_rt), f"{sum(per_rt):.5f}")


def summary(baseline):
    runs = {}
    for line in sys.stdin:
        f = line.split()
        if len(f) != 6 + len(COLUMNS) or line.startswith("#"):
            continue
        runs.setdefault(f[0], {})[f[1]] = [float(x) for x in f[5:]]
    heads = [f"{r}, {k}" for r, k in COLUMNS] + ["total"]
    print("\n| variant | " + " | ".join(heads) + " |")
    print("|---" * (len(heads) + 1) + "|")
    for v, by_run in runs.items():
        cols = zip(*by_run.values())
        print(f"| {v} | " + " | ".join(f"{statistics.median(c):.4f} [{min(c):.4f}–{max(c):.4f}]" for c in cols) + " |")
    for v, by_run in runs.items():
        if v == baseline or baseline not in runs:
            continue
        ratios = [by_run[i][-1] / runs[baseline][i][-1] for i in by_run if i in runs[baseline]]
        if ratios:
            print(f"\ntotal, {v} ÷ {baseline} per pair: {statistics.median(ratios):.3f} "
                  f"[{min(ratios):.3f}–{max(ratios):.3f}] over {len(ratios)} pairs")


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--label":
        count(sys.argv[2])
    elif len(sys.argv) == 3 and sys.argv[1] == "--summary":
        summary(sys.argv[2])
    else:
        sys.exit("usage: switches-by-thread.py --label 'VARIANT RUN ROUND_TRIPS LOAD0 LOAD1' | --summary BASELINE")
