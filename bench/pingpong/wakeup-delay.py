#!/usr/bin/env python3
"""Wakeup delays for wakeup-delay.sh.

--label "VARIANT RUN ROUND_TRIPS LOAD_BEFORE LOAD_AFTER": reads, on stdin,
`perf script --ns -F pid,tid,time,event,trace` of a system-wide record of
sched:sched_wakeup and sched:sched_switch, and prints one line: the label, then
per role of the JVM's threads (echo server, carrier, other) the wakeups per
round trip (of a sleeping thread: the ones followed by a wait), the median, p90 and p99 wait from wakeup to running (µs), and the
switch-outs while still runnable (preempted) per round trip; then the share of
the echo server's counted wakeups that put it on the CPU of the thread that woke
it (the client's carrier, as a rule), and the traced run's p50 (--p50 US, as
Latency printed it): whether a run is slow by where the echo server runs.
The JVM is the process of the thread named echo-server; other processes' threads
are not counted.
--summary BASELINE: reads those lines, prints a Markdown table of medians
[min-max] per variant and the per-pair ratio of the echo server's median wait.
"""
import re
import statistics
import sys

ROLES = ["echo server", "carrier", "other JVM thread"]
STATS = ["wakeups/rt", "wait p50 µs", "wait p90 µs", "wait p99 µs", "preempted/rt"]
RUN_STATS = ["echo on waker's CPU", "run p50 µs"]
EVENT = re.compile(r"^\s*(\d+)/(\d+)\s+(?:\[(\d+)\]\s+)?([\d.]+):\s+sched:(sched_wakeup|sched_switch):\s+(.*)$")
WAKEUP = re.compile(r"comm=(.*?) pid=(\d+) prio=\S+(?: target_cpu=(\d+))?")
SWITCH = re.compile(r"prev_comm=(.*?) prev_pid=(\d+) prev_prio=\d+ prev_state=(\S+) ==> "
                    r"next_comm=(.*?) next_pid=(\d+) next_prio=")


def role(comm):
    if comm == "echo-server":
        return "echo server"
    if comm.startswith("ForkJoi"):
        return "carrier"
    return "other JVM thread"


def percentile(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, max(0, int(-(-p * len(xs) // 100)) - 1))] if xs else float("nan")


def parse(lines):
    """Events as (pid, tid, time s, kind, groups); a wakeup's groups end with
    the CPU it fired on (the waker's) and its target CPU, None when not traced."""
    for line in lines:
        m = EVENT.match(line)
        if not m:
            continue
        pid, tid, cpu, t, kind, rest = (int(m.group(1)), int(m.group(2)), m.group(3), float(m.group(4)),
                                        m.group(5), m.group(6))
        g = (WAKEUP if kind == "sched_wakeup" else SWITCH).search(rest)
        if g:
            yield pid, tid, t, kind, g.groups() + ((cpu,) if kind == "sched_wakeup" else ())


def measure(lines, round_trips, run_p50=float("nan")):
    events = list(parse(lines))
    jvm = next((pid for pid, _, _, kind, g in events if kind == "sched_switch" and g[0] == "echo-server"), None)
    if jvm is None:
        raise SystemExit("wakeup-delay.py: no switch of a thread named echo-server in the trace")
    tids = {tid for pid, tid, _, _, _ in events if pid == jvm}
    woken = {}   # tid -> time of its first wakeup since it last ran
    echo_same_cpu = {}   # echo server's tid -> whether that wakeup put it on the waker's CPU
    same_cpu = []
    waits = {r: [] for r in ROLES}
    preempted = dict.fromkeys(ROLES, 0)
    for pid, tid, t, kind, g in events:
        if kind == "sched_wakeup":
            comm, target, target_cpu, cpu = g[0], int(g[1]), g[2], g[3]
            if target in tids and target not in woken:
                woken[target] = t
                if comm == "echo-server" and target_cpu is not None and cpu is not None:
                    echo_same_cpu[target] = int(target_cpu) == int(cpu)
        else:
            prev_comm, prev_pid, prev_state, next_comm, next_pid = g[0], int(g[1]), g[2], g[3], int(g[4])
            if prev_pid in tids and prev_state.startswith("R"):
                preempted[role(prev_comm)] += 1
            woken.pop(prev_pid, None)   # a wakeup while it ran (it was on the run queue) is not a wait
            echo_same_cpu.pop(prev_pid, None)
            if next_pid in woken:
                waits[role(next_comm)].append((t - woken.pop(next_pid)) * 1e6)
                if next_pid in echo_same_cpu:
                    same_cpu.append(echo_same_cpu.pop(next_pid))
    out = []
    for r in ROLES:
        out += [len(waits[r]) / round_trips, percentile(waits[r], 50), percentile(waits[r], 90),
                percentile(waits[r], 99), preempted[r] / round_trips]
    return out + [sum(same_cpu) / len(same_cpu) if same_cpu else float("nan"), run_p50]


def count(label, run_p50):
    variant, run, total, load0, load1 = label.split()
    values = measure(sys.stdin, float(total), run_p50)
    print(variant, run, total, load0, load1, " ".join(f"{x:.4f}" for x in values))


def summary(baseline):
    runs = {}
    width = len(ROLES) * len(STATS) + len(RUN_STATS)
    for line in sys.stdin:
        f = line.split()
        if len(f) != 5 + width or line.startswith("#"):
            continue
        runs.setdefault(f[0], {})[f[1]] = [float(x) for x in f[5:]]
    for r_i, r in enumerate(ROLES):
        print(f"\n{r}:\n")
        print("| variant | " + " | ".join(STATS) + " |")
        print("|---" * (len(STATS) + 1) + "|")
        for v, by_run in runs.items():
            cols = list(zip(*by_run.values()))[r_i * len(STATS):(r_i + 1) * len(STATS)]
            print(f"| {v} | " + " | ".join(f"{statistics.median(c):.3f} [{min(c):.3f}–{max(c):.3f}]" for c in cols) + " |")
    print("\nper run, in execution order of the pairs (where the echo server ran, the traced run's p50):\n")
    print("| variant | run | " + " | ".join(RUN_STATS) + " |")
    print("|---|---|" + "---|" * len(RUN_STATS))
    for run in sorted({i for by_run in runs.values() for i in by_run}, key=int):
        for v, by_run in runs.items():
            if run in by_run:
                print(f"| {v} | {run} | " + " | ".join(f"{x:.3f}" for x in by_run[run][-len(RUN_STATS):]) + " |")
    for v, by_run in runs.items():
        if v == baseline or baseline not in runs:
            continue
        ratios = [by_run[i][1] / runs[baseline][i][1] for i in by_run if i in runs[baseline]]
        if ratios:
            print(f"\necho server's median wait, {v} ÷ {baseline} per pair: {statistics.median(ratios):.3f} "
                  f"[{min(ratios):.3f}–{max(ratios):.3f}] over {len(ratios)} pairs")


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--label":
        count(sys.argv[2], float("nan"))
    elif len(sys.argv) == 5 and sys.argv[1] == "--label" and sys.argv[3] == "--p50":
        count(sys.argv[2], float(sys.argv[4]))
    elif len(sys.argv) == 3 and sys.argv[1] == "--summary":
        summary(sys.argv[2])
    else:
        sys.exit("usage: wakeup-delay.py --label 'VARIANT RUN ROUND_TRIPS LOAD0 LOAD1' [--p50 US] | --summary BASELINE")
