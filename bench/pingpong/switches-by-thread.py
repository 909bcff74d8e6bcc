#!/usr/bin/env python3
"""Counts for switches-by-thread.sh.

--label "VARIANT RUN ROUND_TRIPS LOAD_BEFORE LOAD_AFTER": reads `perf script -F trace`
of sched:sched_switch on stdin, prints one line: the label, then per role and kind
the switch-outs per round trip.
--summary BASELINE: reads those lines on stdin, prints a Markdown table: median
[min-max] per variant, then the per-pair ratio of the total to BASELINE's.
--sites-label "VARIANT RUN ROUND_TRIPS [JVM_PID]": reads `perf script` with call stacks of
sched:sched_switch, sched:sched_wakeup and the uprobes etjdk_park and etjdk_unpark
(Unsafe_Park and Unsafe_Unpark in libjvm) on stdin, prints one line per site:
SITE, the label, the kind (carrier sleep or carrier wakeup), the site and its count
per round trip. A carrier's sleep is a blocking poll (epoll_wait), a park (a futex
wait after the thread's last park probe) or other; a carrier's wakeup is by an
eventfd write, by readiness (epoll's callback for another socket event), by an
unpark (a futex wake after the waker's last unpark probe) or other; the site is the
Java caller outside the poller and park machinery, two frames deep.
--placement-label "VARIANT RUN ROUND_TRIPS [JVM_PID]": reads `perf script -F
comm,pid,tid,cpu,time,event,trace` of a system-wide sched:sched_switch and
sched:sched_wakeup recording (only the JVM_PID's threads are counted), prints
the same lines for where wakeups put carriers, the echo server and poller threads
(onto the waker's CPU or another, another CPU idle or not) and their preemptions
(another CPU idle or not); --sites-label prints them too.
--sites-summary: reads those lines, prints a Markdown table of the medians per
variant.
"""
import collections
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


# frames of the machinery between a site and the sleep or wakeup it causes
PLUMBING = re.compile(r"^(jdk\.internal\.misc\.Unsafe\.|java\.util\.concurrent\.locks\.LockSupport\."
                      r"|sun\.nio\.ch\.(EPoll|EPollPoller|EventFD|IOUtil|Poller\$IdleCarrierPoller)\."
                      r"|java\.util\.concurrent\.ForkJoinPool\.wakeCarrierPoller)")
FRAME = re.compile(r"^\s*[0-9a-f]+ (.*?)(?:\+0x[0-9a-f]+)? \((.*)\)$")
HEADER = re.compile(r"^\s*(.*?)\s+(?:(\d+)/)?(\d+)\s+\[(\d+)\]\s+([\d.]+):\s+(\S+):\s*(.*)$")
SWITCH_PIDS = re.compile(r"prev_comm=(.*?) prev_pid=(\d+) prev_prio=\d+ prev_state=(\S+) ==> next_comm=(.*?) next_pid=(\d+)")
JIT_MAP = re.compile(r"(^|/)perf-\d+\.map$")
MIN_SHOWN = 0.0005  # per round trip: sites below this in every run share one row, counted
WINDOW = 0.0005  # seconds from a park or unpark probe to the futex call it makes


def java_name(sym, dso):
    """'void a.B.c(x.Y)' -> 'a.B.c'; None for a frame that is not a compiled Java method
    (one in the JIT's perf map)."""
    if not JIT_MAP.search(dso):
        return None
    sym = re.sub(r"\(.*\)$", "", sym).strip()
    name = sym.split(" ")[-1]
    if "." not in name or name.startswith(("Interpreter", "StubRoutines")) or "::" in name:
        return None
    return name


def short(name):
    parts = name.split(".")
    return parts[-2] + "." + parts[-1]


def parse_events(lines):
    """Yields (comm, pid, tid, cpu, time, event, details, frames) from `perf script`
    output (-F comm,pid,tid,cpu,time,event,trace[,ip,sym,dso]; pid is None without the
    pid field), where frames are (symbol, dso) pairs, innermost first."""
    ev = None
    for line in lines:
        line = line.rstrip("\n")
        if not line.strip():
            if ev:
                yield ev
            ev = None
            continue
        if not line.startswith("\t"):        # perf script indents stack frames with a tab
            if ev:
                yield ev
            m = HEADER.match(line)
            ev = (m.group(1), m.group(2), m.group(3), int(m.group(4)), float(m.group(5)), m.group(6),
                  m.group(7), []) if m else None
        elif ev is not None:
            f = FRAME.match(line)
            if f:
                ev[7].append((f.group(1), f.group(2)))
    if ev:
        yield ev


def site(frames):
    """The Java frames above the machinery, two deep, or '-' if none."""
    names = [n for n in (java_name(s, dso) for s, dso in frames) if n]
    i = 0
    while i < len(names) and PLUMBING.match(names[i]):
        i += 1
    return " < ".join(short(n) for n in names[i:i + 2]) or "-"


class EveryThread:
    def __contains__(self, tid):
        return True


def jvm_threads(events, jvm):
    """The tids of the JVM whose pid is jvm (as its events show them), or every thread
    if jvm is None."""
    if jvm is None:
        return EveryThread()
    return {tid for comm, pid, tid, cpu, t, event, details, frames in events if pid == jvm}


def waker_role(comm, tid, jvm_tids):
    """The role of a thread that wakes or preempts one of the JVM's: the kernel's
    threads and idle tasks, the JVM's threads by role(), or another process (whose
    threads may have the same names as the JVM's: a peer JVM's "java")."""
    if thread_role(comm) == "kernel":
        return "kernel"
    return role(comm) if tid in jvm_tids else "other process"


def read_run(label):
    """Parses the label "VARIANT RUN ROUND_TRIPS [JVM_PID]" and the events on stdin."""
    variant, run, total, *jvm = label.split()
    events = list(parse_events(sys.stdin))
    return variant, run, total, events, jvm_threads(events, jvm[0] if jvm else None)


def print_counts(variant, run, total, counts):
    for (kind, where), n in sorted(counts.items()):
        print("SITE", variant, run, total, kind, where, f"{n / float(total):.5f}", sep="\t")


def sites(label):
    variant, run, total, events, jvm_tids = read_run(label)
    carriers = set()
    for comm, pid, tid, cpu, t, event, details, frames in events:
        if event == "sched:sched_switch":
            m = SWITCH_PIDS.search(details)
            if m and role(m.group(1)) == "carrier" and m.group(2) in jvm_tids:
                carriers.add(m.group(2))
    counts = collections.Counter()
    last_park, last_unpark = {}, {}
    for comm, pid, tid, cpu, t, event, details, frames in events:
        syms = [s for s, dso in frames]
        if event.endswith(":etjdk_park"):
            last_park[tid] = (t, site(frames))
        elif event.endswith(":etjdk_unpark"):
            last_unpark[tid] = (t, site(frames))
        elif event == "sched:sched_switch":
            m = SWITCH_PIDS.search(details)
            if not m or m.group(2) not in carriers or m.group(3).startswith("R"):
                continue
            prev = m.group(2)
            if any(s.startswith("epoll_wait") or "do_epoll_wait" in s for s in syms):
                kind = "blocking poll: " + site(frames)
            elif any(s.startswith("futex_wait") for s in syms) and prev in last_park \
                    and t - last_park[prev][0] < WINDOW:
                kind = "park: " + last_park.pop(prev)[1]
            else:
                kind = "other"
            counts[("carrier sleep", kind)] += 1
        elif event == "sched:sched_wakeup":
            m = re.search(r"\bpid=(\d+)", details)
            futex = any(s.startswith("futex_wake") for s in syms)
            unpark = last_unpark.pop(tid, None) if futex else None   # a probe is used once
            if not m or m.group(1) not in carriers:
                continue
            who = waker_role(comm, tid, jvm_tids)
            if any(s.startswith("eventfd_write") for s in syms):
                kind = "eventfd by " + who + ": " + site(frames)
            elif any(s.startswith("ep_poll_callback") for s in syms):
                kind = "readiness by " + who
            elif unpark and t - unpark[0] < WINDOW:
                kind = "unpark by " + who + ": " + unpark[1]
            elif any("hrtimer" in s for s in syms):
                kind = "timer"
            else:
                kind = "other by " + who
            counts[("carrier wakeup", kind)] += 1
    counts.update(placement(events, jvm_tids))
    print_counts(variant, run, total, counts)


PLACED = ("carrier", "echo server", "poller thread")


def placement(events, jvm_tids):
    """Counts, by role, where the wakeups of the JVM's carriers, echo server and poller
    threads put them (onto the waker's CPU or another; whether another CPU was idle
    then), and their preemptions (whether another CPU was idle then). A CPU is idle
    while it runs its swapper: the task its last sched_switch chose, or the one a
    wakeup put on it since; unknown until then. It needs a system-wide recording
    (perf record -a): a task switched in from the idle task is seen only so."""
    running = {}
    counts = collections.Counter()

    def other_idle(cpu):
        return any(c != cpu and comm.startswith("swapper") for c, comm in running.items())
    for comm, pid, tid, cpu, t, event, details, frames in events:
        if event == "sched:sched_switch":
            m = SWITCH_PIDS.search(details)
            if not m:
                continue
            if m.group(3).startswith("R") and role(m.group(1)) in PLACED and m.group(2) in jvm_tids:
                counts[("preemption", f"{role(m.group(1))} by {waker_role(m.group(4), m.group(5), jvm_tids)}, "
                        + ("another CPU idle" if other_idle(cpu) else "no other CPU idle"))] += 1
            running[cpu] = m.group(4)
        elif event == "sched:sched_wakeup":
            m = re.search(r"comm=(.*?) pid=(\d+) prio=\d+ target_cpu=(\d+)", details)
            if not m or role(m.group(1)) not in PLACED or m.group(2) not in jvm_tids:
                continue
            target = int(m.group(3))
            where = "onto the waker's CPU" if target == cpu else "onto another CPU"
            counts[("wakeup placement", f"{role(m.group(1))} by {waker_role(comm, tid, jvm_tids)}: {where}, "
                    + ("another CPU idle" if other_idle(target) else "no other CPU idle"))] += 1
            if running.get(target, "").startswith("swapper"):
                running[target] = m.group(1)          # it runs there next
    return counts


def thread_role(comm):
    """role(), with the kernel's threads (and idle tasks) told apart."""
    if comm.startswith(("swapper", "ksoftirqd", "kworker", "rcu_", "migration")):
        return "kernel"
    return role(comm)


def placement_label(label):
    variant, run, total, events, jvm_tids = read_run(label)
    print_counts(variant, run, total, placement(events, jvm_tids))


def sites_summary():
    per = collections.defaultdict(dict)      # (kind, site) -> variant -> run -> value
    runs = collections.defaultdict(set)
    for line in sys.stdin:
        f = line.rstrip("\n").split("\t")
        if len(f) != 7 or f[0] != "SITE":
            continue
        runs[f[1]].add(f[2])
        per[(f[4], f[5])].setdefault(f[1], {})[f[2]] = float(f[6])
    variants = list(runs)
    print("\n| kind | site | " + " | ".join(variants) + " |")
    print("|---|---|" + "---|" * len(variants))

    def med(key, v):
        vals = [per[key].get(v, {}).get(r, 0.0) for r in sorted(runs[v])]
        return statistics.median(vals), min(vals), max(vals)
    small = collections.Counter()
    for key in sorted(per, key=lambda k: (k[0], -max(med(k, v)[0] for v in variants))):
        if max(med(key, v)[2] for v in variants) < MIN_SHOWN:
            small[key[0]] += 1
            continue
        cells = []
        for v in variants:
            m, lo, hi = med(key, v)
            cells.append(f"{m:.4f} [{lo:.4f}–{hi:.4f}]" if hi > 0 else "0")
        print(f"| {key[0]} | {key[1]} | " + " | ".join(cells) + " |")
    for kind, n in sorted(small.items()):
        print(f"| {kind} | {n} other sites, each below {MIN_SHOWN} in every run | " + " | ".join("" for v in variants) + " |")


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--label":
        count(sys.argv[2])
    elif len(sys.argv) == 3 and sys.argv[1] == "--summary":
        summary(sys.argv[2])
    elif len(sys.argv) == 3 and sys.argv[1] == "--sites-label":
        sites(sys.argv[2])
    elif len(sys.argv) == 3 and sys.argv[1] == "--placement-label":
        placement_label(sys.argv[2])
    elif len(sys.argv) == 2 and sys.argv[1] == "--sites-summary":
        sites_summary()
    else:
        sys.exit("usage: switches-by-thread.py --label 'VARIANT RUN ROUND_TRIPS LOAD0 LOAD1' | --summary BASELINE"
                 " | --sites-label 'VARIANT RUN ROUND_TRIPS' | --placement-label 'VARIANT RUN ROUND_TRIPS'"
                 " | --sites-summary")
